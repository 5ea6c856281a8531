// The collbench session.
#include "sweep_session.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <chrono>

#include "benchmark_frame.hpp"
#include "byte_size.hpp"
#include "errors.hpp"
#include "run_metadata.hpp"
#include "sweep_plan.hpp"

namespace collbench {
namespace {

FaultInjection fault_from(const std::string& name) {
  if (name.empty()) return FaultInjection::none;
  if (name == "corrupt_output") return FaultInjection::corrupt_output;
  if (name == "skip_rank") return FaultInjection::skip_rank;
  if (name == "fail_allocation") return FaultInjection::fail_allocation;
  throw UsageError(fmt::format("--inject-fault '{}' is not corrupt_output, skip_rank or fail_allocation", name));
}

RunSettings settings_from(const Options& options) {
  RunSettings settings;
  settings.warmup_iters = options.warmup_iters;
  settings.iters = options.iters;
  settings.agg_iters = options.agg_iters;
  settings.graph_replays = options.graph_replays;
  settings.check = options.check;
  settings.seed = options.seed;
  settings.timeout_s = options.timeout_s;
  settings.fault = fault_from(options.inject_fault);
  return settings;
}

void print_header(const RunMetadata& metadata, const RunSettings& settings, std::size_t cases) {
  fmt::print("# collbench {} | NCCL {} | CUDA runtime {} | driver {} | host {}\n", metadata.collbench_version,
             metadata.nccl_version, metadata.cuda_runtime, metadata.driver, metadata.host);
  for (const GpuDescription& gpu : metadata.gpus) {
    fmt::print("#   GPU {}: {} [{}] {:.1f} GiB\n", gpu.index, gpu.name, gpu.pci_bus_id, gpu.memory_gib);
  }
  fmt::print("# {} cases | warmup {} | iters {} | agg {} | graph replays {} | check {} | seed {:#x} | timeout {:g} s\n",
             cases, settings.warmup_iters, settings.iters, settings.agg_iters, settings.graph_replays,
             settings.check ? "on" : "off", settings.seed, settings.timeout_s);
  fmt::print("# time = mean per operation over timed iterations (slowest GPU each); algbw, busbw as nccl-tests\n");
  std::fflush(stdout);
}

int exit_status(const SweepTotals& totals) {
  if (totals.interrupt_signal) return 128 + totals.interrupt_signal;
  if (totals.timeouts) return 3;
  if (totals.errors || totals.wrong_elements) return 1;
  return 0;
}

}  // namespace

int run_session(const Options& options, const SessionFlags& flags) {
  const int visible = visible_gpu_count();
  const std::vector<Case> cases = build_sweep(options, visible, flags.listing);
  SweepContext context;
  if (flags.listing) {
    register_case_benchmarks(cases, context);  // --benchmark_list_tests prints the names
    benchmark::RunSpecifiedBenchmarks();
    return 0;
  }

  const auto start = std::chrono::steady_clock::now();
  const RunMetadata metadata = collect_run_metadata();
  const RunSettings settings = settings_from(options);
  print_header(metadata, settings, cases.size());
  Runner runner(settings);
  context.runner = &runner;
  context.sinks.push_back(std::make_unique<ConsoleTable>(stdout));
  if (!options.csv_path.empty()) context.sinks.push_back(std::make_unique<CsvSink>(options.csv_path, metadata, settings));
  register_case_benchmarks(cases, context);

  SilentReporter silent;
  benchmark::RunSpecifiedBenchmarks(flags.google_benchmark_display ? nullptr : &silent);
  benchmark::Shutdown();

  const SweepTotals& totals = context.totals;
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print("#\n# {} cases run: {} ok, {} skipped, {} oom, {} error, {} timeout | wrong elements: {} | wall time {:.1f} s\n",
             totals.cases, totals.ok, totals.skipped, totals.oom, totals.errors, totals.timeouts, totals.wrong_elements,
             wall_s);
  std::fflush(stdout);
  if (runner.stopped()) {
    fmt::print(stderr, "collbench: error: sweep stopped after {} of {} cases: {}\n", totals.cases, cases.size(),
               runner.stop_reason());
  } else if (totals.wrong_elements) {
    fmt::print(stderr, "collbench: error: {} wrong elements (see the #wrong column)\n", totals.wrong_elements);
  }
  return exit_status(totals);
}

}  // namespace collbench
