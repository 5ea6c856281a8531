// collbench's settings table, the common flags it takes, and the rules between options; every
// rejection is one line naming the bad value.
#include "collbench/options.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "algorithms/algorithm_registry.hpp"
#include "core/algorithm.hpp"
#include "core/byte_size.hpp"
#include "core/collective_registry.hpp"
#include "core/communicator_settings.hpp"
#include "core/errors.hpp"
#include "frame/settings/algorithm_tunings.hpp"
#include "frame/settings/command_line.hpp"
#include "frame/settings/communicator_axes.hpp"
#include "frame/settings/value_parsers.hpp"

namespace collbench {
namespace {

using Values = std::vector<std::string>;

std::vector<std::string> parse_ops(const Values& values) {
  std::vector<std::string> all;
  for (const CollectiveSpec& spec : collective_registry()) all.emplace_back(spec.name);
  return parse_named_list(
      values, all, [](const std::string& name) { return std::string(find_collective(name).name); });
}

InPlaceMode parse_in_place(const std::string& text) {
  if (text == "out" || text == "0") return InPlaceMode::out_of_place;
  if (text == "in" || text == "1") return InPlaceMode::in_place;
  if (text == "both") return InPlaceMode::both;
  throw UsageError(fmt::format("--in-place '{}' is not one of out, in, both", shown_value(text)));
}

IterationTiming parse_timing(const std::string& text) {
  if (text == "each") return IterationTiming::each;
  if (text == "loop") return IterationTiming::loop;
  throw UsageError(fmt::format("--timing '{}' is not one of each, loop", shown_value(text)));
}

// -c N; "on"/"off" (and true/false) from before -c took a count still mean 1 and 0.
int parse_check_count(const std::string& text) {
  if (text == "on" || text == "true") return 1;
  if (text == "off" || text == "false") return 0;
  const std::optional<long> value = whole_number(text, kMaxCheckIterations);
  if (!value) {
    throw UsageError(fmt::format("--check '{}' is not a count of checked iterations from 0 to {}",
                                 shown_value(text), kMaxCheckIterations));
  }
  return static_cast<int>(*value);
}

// --a2av-spread: reals in [0, 1], repeats dropped.
std::vector<double> parse_spreads(const Values& values) {
  std::vector<double> spreads;
  for (const std::string& item : values) {
    char* end = nullptr;
    errno = 0;
    const double value = std::strtod(item.c_str(), &end);
    const bool number = std::isdigit(static_cast<unsigned char>(item.front())) != 0 ||
                        item.front() == '.' || item.front() == '-' || item.front() == '+';
    if (!number || end != item.c_str() + item.size() || errno == ERANGE || !std::isfinite(value)) {
      throw UsageError(fmt::format("--a2av-spread '{}' is not a number", shown_value(item)));
    }
    if (!(value >= 0 && value <= 1)) {
      throw UsageError(fmt::format("--a2av-spread '{}' is outside 0..1", shown_value(item)));
    }
    spreads.push_back(value + 0.0);  // -0 is 0
  }
  dedupe(spreads);
  return spreads;
}

// The registry's names, comma separated, for --help.
std::string collective_names() {
  std::string names;
  for (const CollectiveSpec& spec : collective_registry()) {
    names += fmt::format("{}{}", names.empty() ? "" : ", ", spec.name);
  }
  return names;
}

int to_int(const std::string& value) {
  return std::stoi(value);
}
double to_double(const std::string& value) {
  return std::stod(value);
}

// Every collbench setting but the common flags, in --help order.
std::vector<Setting<Options>> make_settings() {
  using O = Options;
  using T = ValueKind;
  std::vector<Setting<O>> s;
  s.push_back(Setting<O>("--ops", T::text, "all_reduce",
                         "Operations: " + collective_names() + ", or all (comma separated)")
                  .as_list()
                  .to_all([](O& o, const Values& v) { o.ops = parse_ops(v); }));
  s.push_back(
      Setting<O>("--algo", T::text, "nccl",
                 "Implementations, comma separated: nccl, hand-built all_reduce ones with optional "
                 "settings (ring:ctas=32:slots=4; listed below), or all")
          .as_list()
          .to_all([](O& o, const Values& v) {
            // Names and settings are checked now, before anything is planned (the environment's
            // too).
            for (const std::string& algo : v) {
              if (algo != "all") resolve_algorithm(algo);
            }
            o.algos = v;
          }));
  s.push_back(
      Setting<O>("-b,--min-bytes", T::text, "8", "Smallest size (K/M/G suffixes)")
          .to([](O& o, const std::string& v) { o.min_bytes = parse_byte_size(v, "--min-bytes"); }));
  s.push_back(
      Setting<O>("-e,--max-bytes", T::text, "128M", "Largest size")
          .to([](O& o, const std::string& v) { o.max_bytes = parse_byte_size(v, "--max-bytes"); }));
  s.push_back(Setting<O>("-f,--step-factor", T::real, "2", "Multiply the size by this each step")
                  .above(1, kMaxStepFactor)
                  .to([](O& o, const std::string& v) { o.step_factor = to_double(v); }));
  s.push_back(
      Setting<O>("-i,--step-bytes", T::text, "", "Add this many bytes each step (instead of -f)")
          .to([](O& o, const std::string& v) {
            o.step_bytes = parse_byte_size(v, "--step-bytes");
          }));
  s.push_back(Setting<O>("-d,--dtype", T::text, "float",
                         "Data types: int8, uint8, int32, uint32, int64, uint64, half, float, "
                         "double, bfloat16, or all")
                  .as_list()
                  .to_all([](O& o, const Values& v) {
                    o.types = parse_named_list(v, all_data_types(), parse_data_type);
                  }));
  s.push_back(
      Setting<O>("-o,--redop", T::text, "sum", "Reductions: sum, prod, max, min, avg, or all")
          .as_list()
          .to_all([](O& o, const Values& v) {
            o.reduce_ops = parse_named_list(v, all_reduce_ops(), parse_reduce_op);
          }));
  s.push_back(Setting<O>("-r,--root", T::text, "0", "Root rank of rooted operations, or all")
                  .to([](O& o, const std::string& v) {
                    if (v != "all") parse_non_negative_int(v, "--root");
                    o.roots = v;
                  }));
  s.push_back(Setting<O>("--in-place", T::text, "both", "out, in or both")
                  .to([](O& o, const std::string& v) { o.in_place = parse_in_place(v); }));
  s.push_back(Setting<O>("--a2av-spread", T::text, "1",
                         "alltoallv: nccl-tests' generated traffic, from 0 (uniform) to 1 (by "
                         "forward distance); a comma-separated list is swept")
                  .as_list()
                  .to_all([](O& o, const Values& v) { o.a2av_spreads = parse_spreads(v); }));
  s.push_back(Setting<O>("--a2av-matrix", T::text, "",
                         "alltoallv: a square matrix file of the bytes rank i sends rank j (row i, "
                         "column j); its bytes replace the size sweep")
                  // Read once the rules between options hold (read_a2av_matrix).
                  .to([](O& o, const std::string& v) { o.a2av_matrix_path = v; }));
  s.push_back(Setting<O>("--split", T::text, "",
                         "Split each GPU count's ranks into concurrent groups by an "
                         "NCCL_TESTS_SPLIT rule (AND 0x7, MOD 2, DIV 4, OR 1; color of rank r, "
                         "ncclCommSplit): every group runs the case at once, sizes and busbw per "
                         "group; --algo nccl only (hand-built algorithms are skipped)")
                  .to([](O& o, const std::string& v) {
                    if (!v.empty()) o.split = parse_split_rule(v);
                  }));
  s.push_back(Setting<O>("-w,--warmup", T::integer, "5", "Warm-up iterations per case")
                  .within(0, kMaxIterations)
                  .to([](O& o, const std::string& v) { o.run.warmup_iters = to_int(v); }));
  s.push_back(Setting<O>("-n,--iters", T::integer, "20",
                         "Timed iterations per batch (the whole case with --max-noise 0; captured "
                         "in the graph with -G)")
                  .within(1, kMaxIterations)
                  .to([](O& o, const std::string& v) { o.run.iters = to_int(v); }));
  s.push_back(Setting<O>("-m,--agg-iters", T::integer, "1",
                         "Operations grouped in one ncclGroupStart/End per iteration")
                  .within(1, kMaxAggregate)
                  .to([](O& o, const std::string& v) { o.run.agg_iters = to_int(v); }));
  s.push_back(Setting<O>("-G,--graph", T::integer, "0",
                         "Capture the timed iterations in a CUDA graph and replay it this many "
                         "times per batch (0: no graph)")
                  .within(0, kMaxIterations)
                  .to([](O& o, const std::string& v) { o.run.graph_replays = to_int(v); }));
  s.push_back(Setting<O>("--timing", T::text, "each",
                         "Iterations launched normally: each (an event between iterations: p50, "
                         "p99) or loop (nccl-tests: events around the whole loop, mean only)")
                  .to([](O& o, const std::string& v) { o.run.timing = parse_timing(v); }));
  s.push_back(Setting<O>("--max-noise", T::real, "1",
                         "Stop when stable: run batches (-n iterations or -G replays) until the "
                         "median's confidence interval is within this many percent of it (and the "
                         "mean's within --max-mean-noise), or --max-time; 0: one batch (fixed "
                         "iterations)")
                  .within(0, 100, "a percentage from 0 (fixed iterations) to 100")
                  .to([](O& o, const std::string& v) { o.run.stop.max_noise_pct = to_double(v); }));
  s.push_back(
      Setting<O>("--max-mean-noise", T::real, "3",
                 "With --max-noise: the mean's confidence interval (busbw comes from the "
                 "mean) must be within this many percent of it too")
          .above(0, 100, "a percentage above 0 and at most 100")
          .to([](O& o, const std::string& v) { o.run.stop.max_mean_noise_pct = to_double(v); }));
  s.push_back(Setting<O>("--min-iters", T::integer, "20",
                         "With --max-noise: samples (iterations, replays or loops) before a case "
                         "may stop")
                  .within(1, kMaxIterations)
                  .to([](O& o, const std::string& v) { o.run.stop.min_samples = to_int(v); }));
  s.push_back(Setting<O>("--min-time", T::real, "0",
                         "With --max-noise: seconds of timed GPU work before a case may stop")
                  .within(0, kMaxCaseSeconds, fmt::format("from 0 to {} seconds", kMaxCaseSeconds))
                  .to([](O& o, const std::string& v) { o.run.stop.min_time_s = to_double(v); }));
  s.push_back(Setting<O>("--max-time", T::real, "0.1",
                         "With --max-noise: seconds of timed GPU work after which a case stops "
                         "unconverged")
                  .within(0, kMaxCaseSeconds, fmt::format("from 0 to {} seconds", kMaxCaseSeconds))
                  .to([](O& o, const std::string& v) { o.run.stop.max_time_s = to_double(v); }));
  s.push_back(Setting<O>("--confidence", T::real, "95",
                         "Confidence level (%) of the intervals in every row")
                  .within(50, kMaxConfidencePct,
                          fmt::format("a percentage from 50 to {}", kMaxConfidencePct))
                  .to([](O& o, const std::string& v) { o.run.confidence = to_double(v) / 100; }));
  s.push_back(Setting<O>("--repeat", T::integer, "1",
                         "Run the whole sweep this many times (the rows' repeat column; the spread "
                         "between passes shows drifts that one pass cannot)")
                  .within(1, kMaxRepeats)
                  .to([](O& o, const std::string& v) { o.repeats = to_int(v); }));
  s.push_back(
      Setting<O>("-c,--check", T::text, "1",
                 "Checked iterations after the timed ones, each with fresh inputs (0: none)")
          .to([](O& o, const std::string& v) { o.run.check_iters = parse_check_count(v); }));
  s.push_back(Setting<O>("--json", T::text, "",
                         "Write every case with every rank's per-iteration samples to this file "
                         "(JSON Lines)")
                  .to([](O& o, const std::string& v) {
                    o.json_path = v;
                    o.run.keep_rank_samples = !v.empty();
                  }));
  s.push_back(Setting<O>("--trace", T::text, "",
                         "Write a Chrome/Perfetto trace of the timed iterations (JSON)")
                  .to([](O& o, const std::string& v) { o.trace_path = v; }));
  s.push_back(Setting<O>("--link-peak", T::text, "",
                         "collbench_linkpeak CSV of this machine: each row gets peak_fraction = "
                         "busbw / link peak")
                  .to([](O& o, const std::string& v) { o.link_peak_path = v; }));
  s.push_back(
      Setting<O>("--topology", T::flag, "", "Print the GPUs, peer access and NVLinks, then exit")
          .to([](O& o, const std::string& v) { o.topology = v == "true"; }));
  // Test-only fault injection: no help keeps it out of --help.
  s.push_back(Setting<O>("--inject-fault", T::text, "", "").to([](O& o, const std::string& v) {
    o.fault = parse_injected_fault(v);
  }));
  return s;
}

const std::vector<Setting<Options>>& collbench_settings() {
  static const std::vector<Setting<Options>> settings = make_settings();
  return settings;
}

const CommonFlags& collbench_common_flags() {
  static const CommonFlags flags = {
      {CommonFlag::gpu_counts, "all", "GPU counts to sweep: 2,4 or 1-4 or all"},
      {CommonFlag::seed, "0x5eed", "Seed of the input pattern (decimal or 0x hex, 64 bits)"},
      {CommonFlag::timeout, "300", "Seconds a case may take before every communicator is aborted"},
      {CommonFlag::csv, "", "Write one CSV row per case to this file"},
      {CommonFlag::launcher, "", ""},
      {CommonFlag::list, "", "List the cases this command line would run, without touching a GPU"},
  };
  return flags;
}

const std::vector<Setting<CommunicatorAxes>>& collbench_axis_settings() {
  static const std::vector<Setting<CommunicatorAxes>> settings = communicator_axis_settings(
      "for --algo nccl only (hand-built algorithms run once, on default communicators; --register "
      "applies to every algorithm); a combination NCCL refuses is skipped");
  return settings;
}

void declare(CommandLine& line, Options& options) {
  line.add(collbench_settings(), options);
  line.add(collbench_axis_settings(), options.axes, "Communicators (swept)");
  line.add(common_settings(collbench_common_flags()), options.common, "Run and output");
  line.add_footer(algorithm_tunings_help());
}

// The rules between options, checked once every option has applied; each throws UsageError.
void sizes_ascend(const Options& o, const CommandLine& line) {
  if (o.min_bytes > o.max_bytes) {
    throw UsageError(fmt::format("--min-bytes {} is larger than --max-bytes {}",
                                 line.values("--min-bytes").front(),
                                 line.values("--max-bytes").front()));
  }
}
void stop_times_ascend(const Options& o, const CommandLine& line) {
  if (o.run.stop.adaptive() && o.run.stop.min_time_s > o.run.stop.max_time_s) {
    throw UsageError(fmt::format("--min-time {} is longer than --max-time {}",
                                 line.values("--min-time").front(),
                                 line.values("--max-time").front()));
  }
}
void loop_timing_without_graph(const Options& o, const CommandLine&) {
  if (o.run.timing == IterationTiming::loop && o.run.graph_replays > 0) {
    throw UsageError("--timing loop with --graph: graph replays are timed per replay already");
  }
}
void spreads_or_matrix(const Options&, const CommandLine& line) {
  if (line.given("--a2av-matrix") && line.given("--a2av-spread")) {
    throw UsageError(
        "--a2av-spread and --a2av-matrix exclude each other (the matrix is the traffic)");
  }
}
void max_ctas_not_in_the_environment(const Options& o, const CommandLine&) {
  refuse_max_ctas_beside_environment(o.axes);
}
constexpr void (*kRules[])(const Options&, const CommandLine&) = {
    sizes_ascend, stop_times_ascend, loop_timing_without_graph, spreads_or_matrix,
    max_ctas_not_in_the_environment};

// What follows from the options once the rules hold: the matrix file read, the user's NCCL_*
// variables, and the common flags the measurement takes.
void complete(Options& o, const CommandLine& line) {
  if (line.given("--a2av-matrix")) {
    if (o.a2av_matrix_path.empty()) throw UsageError("--a2av-matrix '' names no file");
    o.a2av_matrix = std::make_shared<const TrafficMatrix>(read_traffic_matrix(o.a2av_matrix_path));
  }
  // What the user's NCCL_* variables already choose is what a "default" entry runs: the rows say
  // so.
  apply_environment_defaults(read_nccl_environment(), o.axes);
  o.run.seed = o.common.seed;
  o.run.timeout_s = o.common.timeout_s;
}

const CommandLineDeclaration<Options> kCommandLine = {
    "collbench",
    "collbench: benchmark and check GPU collectives (NCCL and hand-built) with nccl-tests' "
    "definitions of size, algbw and busbw.",
    declare};

}  // namespace

std::string command_line_help() {
  return kCommandLine.help();
}

Options parse_command_line(const std::vector<std::string>& args) {
  return kCommandLine.parse(args, [](Options& options, const CommandLine& line) {
    for (const auto rule : kRules) rule(options, line);
    complete(options, line);
  });
}

}  // namespace collbench
