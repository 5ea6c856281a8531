// collbench_dpstep: the data-parallel training-step benchmark. Parses the command line, joins the
// other processes when a launcher started one per GPU, expands the sweep, registers one Google
// Benchmark per configuration and prints one aligned table (world rank 0 only).
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/algorithm.hpp"
#include "sweep/benchmark_frame.hpp"
#include "dp_options.hpp"
#include "dp_session.hpp"
#include "core/errors.hpp"
#include "launch/interrupt.hpp"
#include "launch/process_launch.hpp"
#include "sweep/runner.hpp"

namespace {

using namespace collbench;
using namespace collbench::dp;

void print_list(const std::vector<StepConfig>& plan) {
  std::printf("# all-reduce algorithms: %s\n",
              fmt::format("{}", fmt::join(algorithm_names(OpKind::all_reduce), ", ")).c_str());
  std::printf("# sync modes: sync, overlap, ps, sharded\n");
  const std::string filter = benchmark::GetBenchmarkFilter();
  for (const StepConfig& config : plan) {
    const std::string name = benchmark_name(config);
    if (passes_benchmark_filter(name, filter))
      std::printf("%-48s %s\n", name.c_str(), config_string(config).c_str());
  }
}

int run(int argc, char** argv) {
  bool user_format = false;
  bool help = false;
  for (int i = 1; i < argc; ++i) {
    user_format |= std::strncmp(argv[i], "--benchmark_format", 18) == 0;
    help |= std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0;
  }
  // Google Benchmark would answer --help with its own usage: ours comes first.
  if (help) {
    try {
      parse_dp_options({argv[0], "--help"}, algorithm_names(OpKind::all_reduce));
    } catch (const HelpRequested& text) {
      std::printf(
          "%s\nGoogle Benchmark's --benchmark_filter, --benchmark_format and --benchmark_out also "
          "apply.\n",
          text.what());
    }
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  const DpOptions options = parse_dp_options(std::vector<std::string>(argv, argv + argc),
                                             algorithm_names(OpKind::all_reduce));
  const LaunchEnvironment environment = detect_this_launch(options.run.launcher);
  const bool one_process = environment.mode == LaunchMode::single_process;
  if (options.run.list) {
    // A list needs no GPU and no other process: GPU counts follow the launch size.
    const int gpus = one_process ? visible_gpu_count() : environment.world_size;
    if (environment.world_rank == 0) print_list(expand_plan(options, gpus));
    return 0;
  }
  install_interrupt_handlers();
  // A pass's timeout also bounds the wait for the other processes.
  const std::unique_ptr<ProcessGroup> group = join_processes(environment, options.run.timeout_s);
  const std::vector<StepConfig> plan =
      expand_plan(options, group ? group->size() : visible_gpu_count());
  // With several processes only rank 0 prints and writes the report; every rank measures.
  const bool reporting = !group || group->rank() == 0;
  RunMetadata metadata = collect_run_metadata();
  if (group) record_launch(*group, metadata);
  // With --benchmark_format the benchmark's own output owns stdout; the table goes to stderr.
  std::FILE* table = !reporting ? nullptr : user_format ? stderr : stdout;
  DpSession session(options, std::move(metadata), group.get(), table);
  for (const StepConfig& config : plan) {
    benchmark::RegisterBenchmark(
        benchmark_name(config).c_str(),
        [&session, config](benchmark::State& state) { session.run(config, state); })
        ->UseManualTime()
        ->Iterations(1)
        ->Unit(benchmark::kMillisecond);
  }
  session.print_header(plan, group ? describe_processes(*group, environment) : std::string());
  try {
    SilentReporter silent;
    if (user_format && reporting) {
      benchmark::RunSpecifiedBenchmarks();
    } else {
      benchmark::RunSpecifiedBenchmarks(&silent);
    }
  } catch (...) {
    session.abort_all();
    throw;
  }
  benchmark::Shutdown();
  return session.exit_code();
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const UsageError& error) {
    std::fprintf(stderr, "collbench_dpstep: error: %s\n", error.what());
    return 2;
  } catch (const Interrupted& interrupted) {
    std::fprintf(stderr, "collbench_dpstep: %s\n", interrupted.what());
    return 128 + interrupted.signal();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "collbench_dpstep: error: %s\n", error.what());
    return 1;
  }
}
