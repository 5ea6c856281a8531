// collbench's part of the frame: plan, header, runner, sinks, summary.
#include "collbench/collbench_program.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <memory>

#include "algorithms/algorithm_registry.hpp"
#include "collbench/fault_injection.hpp"
#include "core/algorithm.hpp"
#include "core/interrupt.hpp"
#include "launch/process_launch.hpp"
#include "output/json_samples.hpp"
#include "runtime/cuda_resources.hpp"
#include "telemetry/link_peak_table.hpp"
#include "telemetry/run_metadata.hpp"
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

void print_header(const RunMetadata& metadata, const MeasureSettings& settings, std::size_t cases,
                  const ProcessGroup* group, const LaunchEnvironment& environment) {
  fmt::print("# collbench {} | NCCL {} | CUDA runtime {} | driver {} | host {}\n",
             metadata.collbench_version, metadata.nccl_version, metadata.cuda_runtime,
             metadata.driver, metadata.host);
  if (group) fmt::print("# {}\n", describe_processes(*group, environment));
  for (const GpuInfo& gpu : metadata.topology.gpus) {
    fmt::print("#   GPU {}: {} [{}] {:.1f} GiB, {} SMs\n", gpu.index, gpu.name, gpu.pci_bus_id,
               gpu.memory_bytes / double(1ull << 30), gpu.sm_count);
  }
  if (metadata.topology.gpus.size() > 1) print_commented(format_topology(metadata.topology));
  fmt::print(
      "# {} cases | warmup {} | iters {} | agg {} | graph replays {} | checked iterations {} | "
      "seed {:#x} | "
      "timeout {:g} s\n",
      cases, settings.warmup_iters, settings.iters, settings.agg_iters, settings.graph_replays,
      settings.check_iters, settings.seed, settings.timeout_s);
  const StopRule& stop = settings.stop;
  if (stop.adaptive()) {
    fmt::print(
        "# stop when stable: batches until the median's {:g}% interval is within +-{:g}% (at least "
        "{} samples and "
        "{:g} s of timed work; at most {:g} s)\n",
        settings.confidence * 100, stop.max_noise_pct, stop.min_samples, stop.min_time_s,
        stop.max_time_s);
  }
  if (times_whole_loop(settings)) {
    fmt::print(
        "# time = whole timed loop / operations, events around the loop only, as nccl-tests "
        "(min, p50, p99 = that mean; slowest GPU); algbw, busbw as nccl-tests\n");
  } else {
    fmt::print(
        "# time = mean per operation over timed iterations (slowest GPU each); algbw, busbw as "
        "nccl-tests\n");
  }
  fmt::print(
      "# +- = half the width of the median's {:g}% confidence interval, in % of the median\n",
      settings.confidence * 100);
  std::fflush(stdout);
}

// The sweep's own axes, for the JSON run line.
nlohmann::json sweep_json(const Options& options) {
  std::vector<std::string> types;
  for (DataType type : options.types) types.emplace_back(name_of(type));
  std::vector<std::string> reduce_ops;
  for (ReduceOp op : options.reduce_ops) reduce_ops.emplace_back(name_of(op));
  // The communicator axes as --nccl-* take them: "default" for NCCL's own choice.
  std::vector<std::string> nccl_algos, nccl_protos, nccl_max_ctas;
  for (const std::string& algo : options.axes.nccl_algos)
    nccl_algos.push_back(algo.empty() ? "default" : algo);
  for (const std::string& proto : options.axes.nccl_protos)
    nccl_protos.push_back(proto.empty() ? "default" : proto);
  for (int ctas : options.axes.nccl_max_ctas)
    nccl_max_ctas.push_back(ctas == 0 ? "default" : std::to_string(ctas));
  nlohmann::json sweep = {{"ops", options.ops},
                          {"algos", options.algos},
                          {"min_bytes", options.min_bytes},
                          {"max_bytes", options.max_bytes},
                          {"step_factor", options.step_factor},
                          {"step_bytes", options.step_bytes},
                          {"gpus", options.common.gpu_counts},
                          {"dtypes", types},
                          {"redops", reduce_ops},
                          {"roots", options.roots},
                          {"repeats", options.repeats},
                          {"nccl_algos", nccl_algos},
                          {"nccl_protos", nccl_protos},
                          {"nccl_max_ctas", nccl_max_ctas},
                          {"split", options.split ? options.split->text() : std::string()}};
  // alltoallv's traffic: the matrix file when there is one, else the spreads.
  if (options.a2av_matrix) {
    sweep["a2av_matrix"] = options.a2av_matrix_path;
  } else {
    sweep["a2av_spreads"] = options.a2av_spreads;
  }
  return sweep;
}

int exit_status(const SweepTotals& totals) {
  if (totals.interrupt_signal) return 128 + totals.interrupt_signal;
  if (totals.timeouts) return kExitTimeout;
  if (totals.errors || totals.wrong_elements) return kExitFailed;
  return kExitOk;
}

}  // namespace

std::optional<int> CollbenchProgram::run_without_plan() {
  if (!options_.topology) return std::nullopt;
  if (visible_gpu_count() == 0) {
    fmt::print(stderr, "collbench: error: --topology: no CUDA GPU is visible\n");
    return kExitNoGpu;
  }
  fmt::print("{}", format_topology(probe_topology()));
  return kExitOk;
}

std::vector<ListedCase> CollbenchProgram::list_cases(int gpus) {
  std::vector<ListedCase> listed;
  for (const Case& c : build_sweep(options_, gpus, /*listing=*/true))
    listed.push_back({benchmark_name(c), ""});
  return listed;
}

void CollbenchProgram::start(RunContext& run) {
  start_ = std::chrono::steady_clock::now();
  const double link_peak_gbps =
      options_.link_peak_path.empty() ? 0 : read_link_peak_gbps(options_.link_peak_path);
  cases_ = build_sweep(options_, run.gpus());
  const MeasureSettings& settings = options_.run;
  if (run.reporting) {
    print_header(run.metadata, settings, cases_.size(), run.group.get(), run.environment);
  }
  throw_if_interrupted();  // before the communicators, which take a second or more to make
  runner_ = std::make_unique<Runner>(
      settings, run.group.get(),
      [fault = options_.fault](const std::vector<int>& local_ranks, int ranks) {
        return fault_hooks(fault, local_ranks, ranks);
      });
  context_.runner = runner_.get();
  context_.link_peak_gbps = link_peak_gbps;
  context_.confidence = settings.confidence;
  if (run.reporting) {
    context_.sinks.push_back(std::make_unique<ConsoleTable>(stdout));
    if (options_.repeats > 1) {
      auto spreads = std::make_unique<PassSpreadSummary>();
      pass_spreads_ = spreads.get();
      context_.sinks.push_back(std::move(spreads));
    }
    // Rows are made only when some sink takes them.
    if (auto row_sinks = open_row_sinks(options_.common.csv_path); !row_sinks.empty()) {
      context_.sinks.push_back(
          std::make_unique<ReportRowSink>(std::move(row_sinks), run.metadata, settings));
    }
    if (!options_.trace_path.empty())
      context_.sinks.push_back(std::make_unique<TraceSink>(options_.trace_path));
    if (!options_.json_path.empty()) {
      context_.sinks.push_back(std::make_unique<JsonSamplesSink>(options_.json_path, run.metadata,
                                                                 settings, sweep_json(options_)));
    }
  }
}

void CollbenchProgram::register_cases(std::size_t first, std::size_t count) {
  register_case_benchmarks(cases_.data() + first, count, context_);
}

int CollbenchProgram::finish(RunContext& run) {
  // Another process may be stuck on the collective that stopped this one: no collective teardown.
  if (run.group && runner_->stopped()) run.group->abort();
  const SweepTotals& totals = context_.totals;
  if (!run.reporting) return exit_status(totals);
  if (pass_spreads_) pass_spreads_->print(stdout);
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  fmt::print(
      "#\n# {} cases run: {} ok, {} skipped, {} oom, {} error, {} timeout | wrong elements: {} | "
      "wall time {:.1f} s\n",
      totals.cases, totals.ok, totals.skipped, totals.oom, totals.errors, totals.timeouts,
      totals.wrong_elements, wall_s);
  std::fflush(stdout);
  if (runner_->stopped()) {
    fmt::print(stderr, "collbench: error: sweep stopped after {} of {} cases: {}\n", totals.cases,
               cases_.size(), runner_->stop_reason());
  } else if (totals.wrong_elements) {
    fmt::print(stderr, "collbench: error: {} wrong elements (see the #wrong column)\n",
               totals.wrong_elements);
  }
  return exit_status(totals);
}

void CollbenchProgram::abort() noexcept {
  if (runner_) runner_->abort_all();
}

}  // namespace collbench
