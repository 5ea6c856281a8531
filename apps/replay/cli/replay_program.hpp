// collbench_replay in the shared frame: the frame answers --help and --version, turns bad input
// and refused workloads into one line and exit status 2. import, check, rescale and summary run as
// work that needs no plan; run's workload is checked there too, before any GPU work, and its plan
// is the replay (run/replay_session.hpp): started on the launch's ranks, once per combination of
// the swept settings (each with its own communicators and warm-up), reported by world rank 0.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli/replay_options.hpp"
#include "frame/program.hpp"
#include "measure/rank_set.hpp"
#include "output/row_sinks.hpp"
#include "plan/combination_summary.hpp"
#include "plan/replay_figures.hpp"
#include "plan/workload_ops.hpp"
#include "report/op_csv.hpp"
#include "report/replay_run_info.hpp"
#include "run/replay_session.hpp"

namespace collbench::replay {

class ReplayProgram : public Program {
 public:
  std::string_view name() const override { return "collbench_replay"; }
  std::string help() const override;
  void parse(const std::vector<std::string>& args) override;
  const CommonSettings& common() const override { return options_.common; }
  std::vector<std::pair<std::string, std::string>> output_files() const override {
    return {{"--json", options_.json_path}, {"--ops-csv", options_.ops_csv_path}};
  }
  // Every subcommand but run ends here; run's workload is checked and read here.
  std::optional<int> run_without_plan() override;
  void start(RunContext& run) override;
  void run_plan(RunContext& run) override;
  int finish(RunContext& run) override;
  void abort() noexcept override;

 private:
  // One combination's replay, its figures kept (or why it cannot run here); false when it timed
  // out.
  bool replay_combination(const ReplayCombination& combination, RunContext& run);
  // The run's description for `combination`'s rows (its settings in their config).
  ReplayRunInfo info_for(const ReplayCombination& combination) const;
  // --csv's report rows and --ops-csv's op lines of the latest combination, each written and
  // flushed as it is made.
  void write_report_rows();
  void write_ops_csv();
  void write_json() const;
  // Ops whose checked output was wrong, one line each; the exit status.
  int report_mismatches() const;

  ReplayOptions options_;
  WorkloadOps workload_;
  ReplayRunInfo info_;
  std::vector<ReplayCombination> combinations_;  // the default first
  bool reporting_ = false;
  std::unique_ptr<Runner::RankSet> set_;
  const KernelTrace* trace_ = nullptr;  // this process's, or null: no_trace_reason_ says why
  std::string no_trace_reason_;
  ReplaySettings settings_;
  std::unique_ptr<ReplaySession> session_;  // the current combination's
  std::vector<CombinationRun> runs_;        // the combinations done, in order
  std::vector<std::unique_ptr<RowSink>> row_sinks_;
  std::optional<OpCsvWriter> ops_csv_;
  std::vector<std::string> skipped_;  // "COMBINATION: skipped: why", those that cannot run here
  std::vector<std::string> notes_;    // "COMBINATION: ...", what of one stays on NCCL
  std::string timeout_;               // what timed out, when something did
};

// Throws UsageError, naming both numbers, unless the launch has the workload's world_size ranks:
// `processes` under a launcher (0: none), else at least that many `visible_gpus`.
void check_replay_ranks(const WorkloadOps& workload, int processes, int visible_gpus);

}  // namespace collbench::replay
