// collbench_dpstep: the data-parallel training-step benchmark, run in the shared frame: its
// command line, the configurations it expands to (one Google Benchmark each) and the session that
// measures them and prints one aligned table (world rank 0 only).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "core/algorithm.hpp"
#include "dp_options.hpp"
#include "dp_session.hpp"
#include "frame/program.hpp"
#include "launch/process_launch.hpp"
#include "algorithms/algorithm_registry.hpp"

namespace collbench::dp {
namespace {

class DpStepProgram final : public BenchmarkProgram {
 public:
  std::string_view name() const override { return "collbench_dpstep"; }
  std::string help() const override {
    try {
      parse_dp_options({"collbench_dpstep", "--help"}, algorithm_names(OpKind::all_reduce));
    } catch (const HelpRequested& text) {
      return text.what();
    }
    return {};
  }
  void parse(const std::vector<std::string>& args) override {
    options_ = parse_dp_options(args, algorithm_names(OpKind::all_reduce));
  }
  bool listing() const override { return options_.run.list; }
  std::string launcher() const override { return options_.run.launcher; }
  std::vector<std::pair<std::string, std::string>> output_files() const override {
    return {{"--csv", options_.run.csv_path}};
  }
  // A pass's timeout also bounds the wait for the other processes.
  double join_timeout_s() const override { return options_.run.timeout_s; }

  std::vector<ListedCase> list(int gpus) override {
    std::vector<ListedCase> listed;
    for (const StepConfig& config : expand_plan(options_, gpus)) {
      listed.push_back({benchmark_name(config), config_string(config)});
    }
    return listed;
  }

  std::size_t start(RunContext& run) override {
    plan_ = expand_plan(options_, run.gpus());
    // With --benchmark_format the benchmark's own output owns stdout; the table goes to stderr.
    std::FILE* table = !run.reporting ? nullptr : run.google_benchmark_output ? stderr : stdout;
    session_ = std::make_unique<DpSession>(options_, run.metadata, run.group.get(), table);
    session_->print_header(plan_, run.group ? describe_processes(*run.group, run.environment) : std::string());
    return plan_.size();
  }

  void register_cases(std::size_t first, std::size_t count) override {
    DpSession* session = session_.get();
    for (std::size_t i = first; i < first + count; ++i) {
      const StepConfig& config = plan_[i];
      benchmark::RegisterBenchmark(benchmark_name(config).c_str(),
                                   [session, config](benchmark::State& state) { session->run(config, state); })
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMillisecond);
    }
  }

  int finish(RunContext& run) override {
    if (session_->exit_code() != kExitOk) return session_->exit_code();
    // A CI job on the wrong machine must not pass on rows that are all skipped.
    if (session_->measured() == 0 && !options_.run.allow_skips) {
      if (run.reporting) {
        std::fprintf(stderr, "collbench_dpstep: error: every configuration was skipped (--allow-skips accepts that)\n");
      }
      return kExitFailed;
    }
    return kExitOk;
  }
  void abort() noexcept override {
    if (session_) session_->abort_all();
  }

 private:
  DpOptions options_;
  std::vector<StepConfig> plan_;
  std::unique_ptr<DpSession> session_;
};

}  // namespace
}  // namespace collbench::dp

int main(int argc, char** argv) {
  collbench::dp::DpStepProgram program;
  return collbench::run_program(argc, argv, program);
}
