// collbench in the frame, its cases run as Google Benchmarks: its command line, the sweep plan,
// the header, the runner and its sinks, and the summary line with the exit status.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collbench/benchmark_frame.hpp"
#include "collbench/options.hpp"
#include "collbench/sweep_plan.hpp"
#include "frame/google_benchmark_cases.hpp"
#include "measure/runner.hpp"

namespace collbench {

class CollbenchProgram final : public GoogleBenchmarkProgram {
 public:
  std::string_view name() const override { return "collbench"; }
  const CommonSettings& common() const override { return options_.common; }
  std::vector<std::pair<std::string, std::string>> output_files() const override {
    return {{"--json", options_.json_path}, {"--trace", options_.trace_path}};
  }
  std::optional<int> run_without_plan() override;
  void start(RunContext& run) override;
  int finish(RunContext& run) override;
  void abort() noexcept override;

 protected:
  std::string options_help() const override { return command_line_help(); }
  void parse_options(const std::vector<std::string>& args) override {
    options_ = parse_command_line(args);
  }
  std::vector<ListedCase> list_cases(int gpus) override;
  std::size_t case_count() const override { return cases_.size(); }
  void register_cases(std::size_t first, std::size_t count) override;

 private:
  Options options_;
  std::vector<Case> cases_;
  std::unique_ptr<Runner> runner_;
  SweepContext context_;
  std::chrono::steady_clock::time_point start_;
  PassSpreadSummary* pass_spreads_ = nullptr;  // with --repeat, owned by context_.sinks
};

}  // namespace collbench
