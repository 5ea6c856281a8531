// collbench_dpstep: the data-parallel training-step benchmark, run in the shared frame: its
// command line, the configurations it expands to (one Google Benchmark each, through the frame's
// adapter) and the session that measures them and prints one aligned table (world rank 0 only).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "dp_options.hpp"
#include "frame/google_benchmark_cases.hpp"
#include "launch/process_launch.hpp"
#include "session/dp_session.hpp"

namespace collbench::dp {
namespace {

class DpStepProgram final : public GoogleBenchmarkProgram {
 public:
  std::string_view name() const override { return "collbench_dpstep"; }
  const CommonSettings& common() const override { return options_.common; }

  void start(RunContext& run) override {
    plan_ = expand_plan(options_, run.gpus());
    // With --benchmark_format the benchmark's own output owns stdout; the table goes to stderr.
    std::FILE* table = !run.reporting ? nullptr : google_benchmark_output() ? stderr : stdout;
    session_ = std::make_unique<DpSession>(options_, run.metadata, run.group.get(), table);
    session_->print_header(
        plan_, run.group ? describe_processes(*run.group, run.environment) : std::string());
  }

  int finish(RunContext& run) override {
    if (session_->exit_code() != kExitOk) return session_->exit_code();
    // A CI job on the wrong machine must not pass on rows that are all skipped.
    if (session_->measured() == 0 && !options_.session.allow_skips) {
      if (run.reporting) {
        std::fprintf(stderr,
                     "collbench_dpstep: error: every configuration was skipped (--allow-skips "
                     "accepts that)\n");
      }
      return kExitFailed;
    }
    return kExitOk;
  }
  void abort() noexcept override {
    if (session_) session_->abort_all();
  }

 protected:
  std::string options_help() const override { return dp_options_help(); }
  void parse_options(const std::vector<std::string>& args) override {
    options_ = parse_dp_options(args);
  }

  std::vector<ListedCase> list_cases(int gpus) override {
    std::vector<ListedCase> listed;
    for (const StepConfig& config : expand_plan(options_, gpus)) {
      listed.push_back({benchmark_name(config), config_string(config)});
    }
    return listed;
  }

  std::size_t case_count() const override { return plan_.size(); }

  void register_cases(std::size_t first, std::size_t count) override {
    DpSession* session = session_.get();
    for (std::size_t i = first; i < first + count; ++i) {
      const StepConfig& config = plan_[i];
      benchmark::RegisterBenchmark(
          benchmark_name(config).c_str(),
          [session, config](benchmark::State& state) { session->run(config, state); })
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMillisecond);
    }
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
