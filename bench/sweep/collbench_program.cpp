// The collbench session.
#include "sweep/sweep_session.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <memory>

#include "sweep/benchmark_frame.hpp"
#include "core/byte_size.hpp"
#include "core/errors.hpp"
#include "telemetry/link_peak_table.hpp"
#include "launch/process_launch.hpp"
#include "telemetry/run_metadata.hpp"
#include "sweep/sweep_plan.hpp"
#include "telemetry/topology.hpp"

namespace collbench {
namespace {

void print_commented(const std::string& text) {
  std::size_t begin = 0;
  while (begin < text.size()) {
    const std::size_t end = std::min(text.find('\n', begin), text.size());
    fmt::print("#   {}\n", text.substr(begin, end - begin));
    begin = end + 1;
  }
}

void print_header(const RunMetadata& metadata, const RunSettings& settings, std::size_t cases,
                  const ProcessGroup* group, const LaunchEnvironment& environment) {
  fmt::print("# collbench {} | NCCL {} | CUDA runtime {} | driver {} | host {}\n", metadata.collbench_version,
             metadata.nccl_version, metadata.cuda_runtime, metadata.driver, metadata.host);
  if (group) fmt::print("# {}\n", describe_processes(*group, environment));
  for (const GpuInfo& gpu : metadata.topology.gpus) {
    fmt::print("#   GPU {}: {} [{}] {:.1f} GiB, {} SMs\n", gpu.index, gpu.name, gpu.pci_bus_id,
               gpu.memory_bytes / double(1ull << 30), gpu.sm_count);
  }
  if (metadata.topology.gpus.size() > 1) print_commented(format_topology(metadata.topology));
  fmt::print("# {} cases | warmup {} | iters {} | agg {} | graph replays {} | check {} | seed {:#x} | timeout {:g} s\n",
             cases, settings.warmup_iters, settings.iters, settings.agg_iters, settings.graph_replays,
             settings.check ? "on" : "off", settings.seed, settings.timeout_s);
  if (times_whole_loop(settings)) {
    fmt::print(
        "# time = whole timed loop / operations, events around the loop only, as nccl-tests "
        "(min, p50, p99 = that mean; slowest GPU); algbw, busbw as nccl-tests\n");
  } else {
    fmt::print(
        "# time = mean per operation over timed iterations (slowest GPU each); algbw, busbw as "
        "nccl-tests\n");
  }
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
  if (options.topology) {
    if (visible_gpu_count() == 0) throw UsageError("--topology: no CUDA GPU is visible");
    fmt::print("{}", format_topology(probe_topology()));
    return 0;
  }
  const LaunchEnvironment environment = detect_this_launch(options.launcher);
  if (flags.listing) {
    // A list needs no GPU and no other process: GPU counts are checked against the launch size.
    const int gpus = environment.mode == LaunchMode::single_process ? visible_gpu_count() : environment.world_size;
    const std::vector<Case> cases = build_sweep(options, gpus, /*listing=*/true);
    SweepContext context;
    register_case_benchmarks(cases, context);  // --benchmark_list_tests prints the names
    benchmark::RunSpecifiedBenchmarks();
    return 0;
  }

  const auto start = std::chrono::steady_clock::now();
  const double link_peak_gbps = options.link_peak_path.empty() ? 0 : read_link_peak_gbps(options.link_peak_path);
  // A case's timeout also bounds the wait for the other processes.
  std::unique_ptr<ProcessGroup> group = join_processes(environment, options.run.timeout_s);
  const std::vector<Case> cases = build_sweep(options, group ? group->size() : visible_gpu_count());
  // With several processes only rank 0 prints and writes the report; every rank measures.
  const bool reporting = !group || group->rank() == 0;
  RunMetadata metadata = collect_run_metadata();
  if (group) record_launch(*group, metadata);
  const RunSettings& settings = options.run;
  if (reporting) print_header(metadata, settings, cases.size(), group.get(), environment);
  Runner runner(settings, group.get());
  SweepContext context;
  context.runner = &runner;
  context.link_peak_gbps = link_peak_gbps;
  if (reporting) {
    context.sinks.push_back(std::make_unique<ConsoleTable>(stdout));
    if (!options.csv_path.empty()) {
      context.sinks.push_back(std::make_unique<CsvSink>(options.csv_path, metadata, settings));
    }
  }
  if (reporting && !options.trace_path.empty()) context.sinks.push_back(std::make_unique<TraceSink>(options.trace_path));
  register_case_benchmarks(cases, context);

  try {
    SilentReporter silent;
    benchmark::RunSpecifiedBenchmarks(flags.google_benchmark_display ? nullptr : &silent);
  } catch (...) {
    // Whatever escaped (an interrupt, a bug), a peer may be stuck: no collective teardown.
    if (group) group->abort();
    throw;
  }
  benchmark::Shutdown();

  // Another process may be stuck on the collective that stopped this one: no collective teardown.
  if (group && runner.stopped()) group->abort();
  const SweepTotals& totals = context.totals;
  if (!reporting) return exit_status(totals);
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
