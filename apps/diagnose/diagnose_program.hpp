// collbench_diagnose in the shared frame: its plan is the whole diagnosis (each GPU alone, every
// pair, the collectives, bisection of a slow group), then the verdict on the console and in JSON,
// and the exit status (0: no suspect, 1: suspects).
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "diagnose_options.hpp"
#include "frame/program.hpp"
#include "measure/rank_set.hpp"
#include "probes/arrival_probe.hpp"
#include "probes/gpu_probe.hpp"
#include "probes/pair_probe.hpp"
#include "probes/rank_timing.hpp"
#include "verdict/figures.hpp"
#include "verdict/verdict.hpp"

namespace collbench::diagnose {

class DiagnoseProgram final : public Program {
 public:
  std::string_view name() const override { return "collbench_diagnose"; }
  std::string help() const override { return diagnose_help(); }
  void parse(const std::vector<std::string>& args) override {
    options_ = parse_diagnose_options(args);
  }
  const CommonSettings& common() const override { return options_.common; }
  std::vector<std::pair<std::string, std::string>> output_files() const override {
    return {{"--json", options_.json_path}};
  }
  // --from FILE: the saved measurements judged again, with no GPU and no launch.
  std::optional<int> run_without_plan() override;
  std::vector<ListedCase> list(int gpus) override;
  void start(RunContext& run) override;
  void run_plan(RunContext& run) override;
  int finish(RunContext& run) override;
  void abort() noexcept override;

 private:
  void diagnose();
  std::vector<RankIdentity> identify_ranks();
  void probe_each_gpu();
  void probe_pairs_and_groups();
  void probe_collectives();
  void narrow_down_slow_groups();
  // Measures again, alone, whatever the first judgement flagged (Measurements::rechecks).
  void recheck_flagged();
  GpuProbeSettings gpu_settings() const;
  PairProbeSettings pair_settings() const;
  ArrivalProbeSettings arrival_settings() const;
  Thresholds thresholds() const;
  // After a probe timed out: who had not started it, hung in it, or never answered.
  void name_missing_ranks(const std::string& what, std::vector<RankProgress> reported);
  ProbeFaults probe_faults() const;

  DiagnoseOptions options_;
  RunContext* run_ = nullptr;
  int ranks_ = 0;
  std::unique_ptr<Runner::RankSet> set_;
  Measurements measurements_;
  double link_peak_gbps_ = 0;       // --link-peak's, read at start; 0 without it
  std::vector<unsigned> run_pids_;  // every rank's process: not "other processes" on a GPU
  std::optional<Verdict> verdict_;
  std::chrono::steady_clock::time_point start_;
  double wall_s_ = 0;
};

}  // namespace collbench::diagnose
