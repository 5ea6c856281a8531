// collbench as a BenchmarkProgram: its command line, the sweep plan, the header, the runner and
// its sinks, and the summary line with the exit status.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frame/program.hpp"
#include "collbench/benchmark_frame.hpp"
#include "collbench/options.hpp"
#include "measure/runner.hpp"
#include "collbench/sweep_plan.hpp"

namespace collbench {

class CollbenchProgram final : public BenchmarkProgram {
 public:
  std::string_view name() const override { return "collbench"; }
  std::string help() const override;
  void parse(const std::vector<std::string>& args) override { options_ = parse_command_line(args); }
  bool listing() const override { return options_.list; }
  std::string launcher() const override { return options_.launcher; }
  // A case's timeout also bounds the wait for the other processes.
  double join_timeout_s() const override { return options_.run.timeout_s; }
  std::vector<std::pair<std::string, std::string>> output_files() const override {
    return {{"--csv", options_.csv_path}, {"--json", options_.json_path}, {"--trace", options_.trace_path}};
  }
  std::optional<int> run_without_plan() override;
  std::vector<ListedCase> list(int gpus) override;
  std::size_t start(RunContext& run) override;
  void register_cases(std::size_t first, std::size_t count) override;
  int finish(RunContext& run) override;
  void abort() noexcept override;

 private:
  Options options_;
  std::vector<Case> cases_;
  std::unique_ptr<Runner> runner_;
  SweepContext context_;
  std::chrono::steady_clock::time_point start_;
  PassSpreadSummary* pass_spreads_ = nullptr;  // with --repeat, owned by context_.sinks
};

}  // namespace collbench
