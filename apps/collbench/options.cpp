// Command-line parsing with CLI11; every rejection is one line naming the bad value.
#include "collbench/options.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <optional>
#include <cstdlib>
#include <sstream>

#include "core/algorithm.hpp"
#include "core/byte_size.hpp"
#include "core/collective_registry.hpp"
#include "core/communicator_settings.hpp"
#include "core/errors.hpp"
#include "frame/command_line.hpp"
#include "frame/value_parsers.hpp"
#include "launch/launch_environment.hpp"
#include "collbench/fault_injection.hpp"
#include "algorithms/algorithm_registry.hpp"

namespace collbench {




namespace {



std::vector<std::string> parse_ops(const std::string& text) {
  std::vector<std::string> ops;
  for (const std::string& name : split_list(text, "--ops")) {
    if (name == "all") {
      for (const CollectiveSpec& spec : collective_registry()) ops.emplace_back(spec.name);
    } else {
      ops.emplace_back(find_collective(name).name);
    }
  }
  return ops;
}

namespace {

// A comma-separated list of `option`'s names, each parsed by `parse`; "all" stands for `all`.
template <typename Value, typename Parse>
std::vector<Value> parse_named_list(const std::string& text, const char* option,
                                    const std::vector<Value>& all, Parse&& parse) {
  std::vector<Value> values;
  for (const std::string& name : split_list(text, option)) {
    if (name == "all") {
      values = all;
    } else {
      values.push_back(parse(name));
    }
  }
  return values;
}

}  // namespace

std::vector<DataType> parse_types(const std::string& text) {
  return parse_named_list(text, "--dtype", all_data_types(), parse_data_type);
}

std::vector<ReduceOp> parse_reduce_ops(const std::string& text) {
  return parse_named_list(text, "--redop", all_reduce_ops(), parse_reduce_op);
}

InPlaceMode parse_in_place(const std::string& text) {
  if (text == "out" || text == "0") return InPlaceMode::out_of_place;
  if (text == "in" || text == "1") return InPlaceMode::in_place;
  if (text == "both") return InPlaceMode::both;
  throw UsageError(fmt::format("--in-place '{}' is not one of out, in, both", text));
}

std::vector<BufferRegistration> parse_registrations(const std::string& text) {
  return parse_named_list(text, "--register", all_buffer_registrations(), parse_buffer_registration);
}

IterationTiming parse_timing(const std::string& text) {
  if (text == "each") return IterationTiming::each;
  if (text == "loop") return IterationTiming::loop;
  throw UsageError(fmt::format("--timing '{}' is not one of each, loop", text));
}

// -c N; "on"/"off" (and true/false) from before -c took a count still mean 1 and 0.
int parse_check_count(const std::string& text) {
  if (text == "on" || text == "true") return 1;
  if (text == "off" || text == "false") return 0;
  const std::optional<long> value = whole_number(text, kMaxCheckIterations);
  if (!value) {
    throw UsageError(fmt::format("--check '{}' is not a count of checked iterations from 0 to {}", text,
                                 kMaxCheckIterations));
  }
  return static_cast<int>(*value);
}


}  // namespace


std::vector<double> parse_spreads(const std::string& text) {
  std::vector<double> spreads;
  for (const std::string& item : split_list(text, "--a2av-spread")) {
    char* end = nullptr;
    errno = 0;
    const double value = std::strtod(item.c_str(), &end);
    const bool number = std::isdigit(static_cast<unsigned char>(item.front())) != 0 || item.front() == '.' ||
                        item.front() == '-' || item.front() == '+';
    if (!number || end != item.c_str() + item.size() || errno == ERANGE || !std::isfinite(value)) {
      throw UsageError(fmt::format("--a2av-spread '{}' is not a number", item));
    }
    if (!(value >= 0 && value <= 1)) throw UsageError(fmt::format("--a2av-spread '{}' is outside 0..1", item));
    spreads.push_back(value + 0.0);  // -0 is 0
  }
  dedupe(spreads);
  return spreads;
}

namespace {

// The registry's names, comma separated, for --help.
std::string collective_names() {
  std::string names;
  for (const CollectiveSpec& spec : collective_registry()) {
    names += fmt::format("{}{}", names.empty() ? "" : ", ", spec.name);
  }
  return names;
}

// The command line's declaration: every option bound to a field of `options` or to text that
// parse_command_line() converts.
struct CommandLine {
  Options options;
  std::string ops = "all_reduce", algos = "nccl", types = "float", reduce_ops = "sum";
  std::string min_bytes = "8", max_bytes = "128M", step_bytes, in_place = "both", check = "1", inject_fault;
  double confidence_pct = 95;
  std::string timing = "each";
  std::string registrations = "none";
  std::string seed = "0x5eed";
  std::string a2av_spreads = "1";
  std::string nccl_algos = "default", nccl_protos = "default", nccl_max_ctas = "default", split;
  CLI::App app;
  CommandLine();
};

CommandLine::CommandLine()
    : app{
      "collbench: benchmark and check GPU collectives (NCCL and hand-built) with nccl-tests' "
      "definitions of size, algbw and busbw.",
      "collbench"} {
  app.add_option("--ops", ops, "Operations: " + collective_names() + ", or all (comma separated)")
      ->capture_default_str();
  app.add_option("--algo", algos,
                 "Implementations, comma separated: nccl, hand-built all_reduce ones with optional "
                 "settings (ring:ctas=32:slots=4; listed below), or all")
      ->capture_default_str();
  app.add_option("-b,--min-bytes", min_bytes, "Smallest size (K/M/G suffixes)")->capture_default_str();
  app.add_option("-e,--max-bytes", max_bytes, "Largest size")->capture_default_str();
  app.add_option("-f,--step-factor", options.step_factor, "Multiply the size by this each step")
      ->capture_default_str();
  app.add_option("-i,--step-bytes", step_bytes, "Add this many bytes each step (instead of -f)");
  app.add_option("-g,--gpus", options.gpus, "GPU counts to sweep: 2,4 or 1-4 or all")->capture_default_str();
  app.add_option("-d,--dtype", types, "Data types: int8, uint8, int32, uint32, int64, uint64, half, float, "
                                      "double, bfloat16, or all")
      ->capture_default_str();
  app.add_option("-o,--redop", reduce_ops, "Reductions: sum, prod, max, min, avg, or all")->capture_default_str();
  app.add_option("-r,--root", options.roots, "Root rank of rooted operations, or all")->capture_default_str();
  app.add_option("--in-place", in_place, "out, in or both")->capture_default_str();
  app.add_option("--register", registrations,
                 "NCCL buffer registration, swept: none, local (ncclCommRegister), symmetric (ncclMemAlloc and "
                 "symmetric windows, NCCL >= 2.27), or all")
      ->capture_default_str();
  app.add_option("--a2av-spread", a2av_spreads,
                 "alltoallv: nccl-tests' generated traffic, from 0 (uniform) to 1 (by forward distance); "
                 "a comma-separated list is swept")
      ->capture_default_str();
  app.add_option("--a2av-matrix", options.a2av_matrix_path,
                 "alltoallv: a square matrix file of the bytes rank i sends rank j (row i, column j); "
                 "its bytes replace the size sweep");
  app.add_option(
         "--nccl-algo", nccl_algos,
         "NCCL algorithms (NCCL_ALGO, set while each combination's communicators live), comma "
         "separated: Ring, Tree, CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT, default (NCCL's "
         "choice, or NCCL_ALGO as already set, which rows then name). With --nccl-proto and "
         "--nccl-max-ctas a cartesian product, for --algo nccl only (hand-built algorithms run "
         "once, on default communicators); a combination NCCL refuses is skipped")
      ->capture_default_str();
  app.add_option("--nccl-proto", nccl_protos,
                 "NCCL protocols (NCCL_PROTO): LL, LL128, Simple, default (or NCCL_PROTO as set)")
      ->capture_default_str();
  app.add_option(
         "--nccl-max-ctas", nccl_max_ctas,
         "NCCL's CTA (channel) limit per collective (ncclConfig_t maxCTAs), 1 to 64 or default "
         "(or NCCL_MAX_CTAS as set)")
      ->capture_default_str();
  app.add_option(
      "--split", split,
      "Split each GPU count's ranks into concurrent groups by an NCCL_TESTS_SPLIT rule (AND 0x7, "
      "MOD 2, DIV 4, OR 1; color of rank r, ncclCommSplit): every group runs the case at once, "
      "sizes and busbw per group; --algo nccl only (hand-built algorithms are skipped)");
  app.add_option("-w,--warmup", options.run.warmup_iters, "Warm-up iterations per case")->capture_default_str();
  app.add_option("-n,--iters", options.run.iters,
                 "Timed iterations per batch (the whole case with --max-noise 0; captured in the graph with -G)")
      ->capture_default_str();
  app.add_option("-m,--agg-iters", options.run.agg_iters, "Operations grouped in one ncclGroupStart/End per iteration")
      ->capture_default_str();
  app.add_option("-G,--graph", options.run.graph_replays,
                 "Capture the timed iterations in a CUDA graph and replay it this many times per batch (0: no graph)")
      ->capture_default_str();
  app.add_option(
         "--timing", timing,
         "Iterations launched normally: each (an event between iterations: p50, p99) or loop "
         "(nccl-tests: events around the whole loop, mean only)")
      ->capture_default_str();
  app.add_option(
         "--max-noise", options.run.stop.max_noise_pct,
         "Stop when stable: run batches (-n iterations or -G replays) until the median's "
         "confidence interval is within this many percent of it (and the mean's within "
         "--max-mean-noise), or --max-time; 0: one batch (fixed iterations)")
      ->capture_default_str();
  app.add_option("--max-mean-noise", options.run.stop.max_mean_noise_pct,
                 "With --max-noise: the mean's confidence interval (busbw comes from the mean) must "
                 "be within this many percent of it too")
      ->capture_default_str();
  app.add_option("--min-iters", options.run.stop.min_samples,
                 "With --max-noise: samples (iterations, replays or loops) before a case may stop")
      ->capture_default_str();
  app.add_option("--min-time", options.run.stop.min_time_s,
                 "With --max-noise: seconds of timed GPU work before a case may stop")
      ->capture_default_str();
  app.add_option("--max-time", options.run.stop.max_time_s,
                 "With --max-noise: seconds of timed GPU work after which a case stops unconverged")
      ->capture_default_str();
  app.add_option("--confidence", confidence_pct, "Confidence level (%) of the intervals in every row")
      ->capture_default_str();
  app.add_option("--repeat", options.repeats,
                 "Run the whole sweep this many times (the rows' repeat column; the spread between passes "
                 "shows drifts that one pass cannot)")
      ->capture_default_str();
  app.add_option("-c,--check", check, "Checked iterations after the timed ones, each with fresh inputs (0: none)")
      ->capture_default_str();
  app.add_option("--seed", seed, "Seed of the input pattern (decimal or 0x hex, 64 bits)")->capture_default_str();
  app.add_option("--timeout", options.run.timeout_s, "Seconds a case may take before every communicator is aborted")
      ->capture_default_str();
  app.add_option("--csv", options.csv_path, "Write one CSV row per case to this file");
  app.add_option("--json", options.json_path,
                 "Write every case with every rank's per-iteration samples to this file (JSON Lines)");
  app.add_option("--trace", options.trace_path, "Write a Chrome/Perfetto trace of the timed iterations (JSON)");
  app.add_option("--link-peak", options.link_peak_path,
                 "collbench_linkpeak CSV of this machine: each row gets peak_fraction = busbw / link peak");
  app.add_flag("--topology", options.topology, "Print the GPUs, peer access and NVLinks, then exit");
  // Test-only fault injection; the empty group keeps it out of --help.
  app.add_option("--inject-fault", inject_fault)->group("");
  app.add_option("--launcher", options.launcher, kLauncherOptionHelp)->capture_default_str();
  app.add_flag("--list", options.list, "List the cases this command line would run, without touching a GPU");
  app.footer("Implementations and their settings (--algo NAME:SETTING=VALUE; the environment variable sets\n"
             "the default for the whole run):\n" +
             algorithm_settings_help());

}

}  // namespace

std::string command_line_help() {
  return CommandLine().app.help();
}

Options parse_command_line(const std::vector<std::string>& args) {
  CommandLine line;
  parse_arguments(line.app, args);
  Options& options = line.options;
  const std::string &ops = line.ops, &algos = line.algos, &types = line.types, &reduce_ops = line.reduce_ops;
  const std::string &min_bytes = line.min_bytes, &max_bytes = line.max_bytes, &step_bytes = line.step_bytes;
  const std::string &in_place = line.in_place, &check = line.check, &inject_fault = line.inject_fault;
  const std::string& timing = line.timing;
  options.run.seed = parse_seed(line.seed);

  options.ops = parse_ops(ops);
  dedupe(options.ops);
  options.algos = split_list(algos, "--algo");
  // Names and settings are checked now, before anything is planned (the environment's too).
  for (const std::string& algo : options.algos) {
    if (algo != "all") resolve_algorithm(algo);
  }
  options.types = parse_types(types);
  dedupe(options.types);
  options.reduce_ops = parse_reduce_ops(reduce_ops);
  dedupe(options.reduce_ops);
  options.min_bytes = parse_byte_size(min_bytes, "--min-bytes");
  options.max_bytes = parse_byte_size(max_bytes, "--max-bytes");
  if (!step_bytes.empty()) options.step_bytes = parse_byte_size(step_bytes, "--step-bytes");
  options.in_place = parse_in_place(in_place);
  options.registrations = parse_registrations(line.registrations);
  dedupe(options.registrations);
  options.nccl_algos = parse_nccl_algo_list(line.nccl_algos);
  options.nccl_protos = parse_nccl_proto_list(line.nccl_protos);
  options.nccl_max_ctas = parse_nccl_max_ctas_list(line.nccl_max_ctas);
  // NCCL applies NCCL_MAX_CTAS after ncclConfig_t (src/init.cc), so the sweep would not be what it
  // says.
  if (const char* environment = std::getenv("NCCL_MAX_CTAS");
      environment != nullptr && options.nccl_max_ctas != std::vector<int>{0}) {
    throw UsageError(fmt::format(
        "--nccl-max-ctas with NCCL_MAX_CTAS={} in the environment: NCCL would apply the "
        "variable instead; unset it",
        environment));
  }
  // What the user's NCCL_* variables already choose is what a "default" entry runs: the rows say so.
  const auto variable = [](const char* name) {
    const char* value = std::getenv(name);
    return value ? std::optional<std::string>(value) : std::nullopt;
  };
  apply_environment_defaults({variable("NCCL_ALGO"), variable("NCCL_PROTO"), variable("NCCL_MAX_CTAS")},
                             options.nccl_algos, options.nccl_protos, options.nccl_max_ctas);
  if (!line.split.empty()) options.split = parse_split_rule(line.split);
  options.run.check_iters = parse_check_count(check);
  options.run.keep_rank_samples = !options.json_path.empty();
  options.run.timing = parse_timing(timing);
  options.fault = parse_injected_fault(inject_fault);
  options.a2av_spreads = parse_spreads(line.a2av_spreads);
  if (line.app.count("--a2av-matrix") > 0) {
    if (line.app.count("--a2av-spread") > 0) {
      throw UsageError("--a2av-spread and --a2av-matrix exclude each other (the matrix is the traffic)");
    }
    if (options.a2av_matrix_path.empty()) throw UsageError("--a2av-matrix '' names no file");
    options.a2av_matrix = std::make_shared<const TrafficMatrix>(read_traffic_matrix(options.a2av_matrix_path));
  }

  if (options.min_bytes > options.max_bytes) {
    throw UsageError(fmt::format("--min-bytes {} is larger than --max-bytes {}", min_bytes, max_bytes));
  }
  if (!(options.step_factor > 1.0) || !std::isfinite(options.step_factor) || options.step_factor > kMaxStepFactor) {
    throw UsageError(fmt::format("--step-factor {} must be greater than 1 and at most {:g}", options.step_factor,
                                 kMaxStepFactor));
  }
  const auto check_range = [](std::string_view option, int value, int low, int high) {
    if (value < low || value > high) throw UsageError(fmt::format("{} {} is not from {} to {}", option, value, low, high));
  };
  check_range("--warmup", options.run.warmup_iters, 0, kMaxIterations);
  check_range("--iters", options.run.iters, 1, kMaxIterations);
  check_range("--agg-iters", options.run.agg_iters, 1, kMaxAggregate);
  check_range("--graph", options.run.graph_replays, 0, kMaxIterations);
  if (!(options.run.timeout_s > 0)) throw UsageError(fmt::format("--timeout {} must be positive", options.run.timeout_s));
  if (options.run.timeout_s > kMaxTimeoutS) {
    throw UsageError(
        fmt::format("--timeout {} is more than {:g} s", options.run.timeout_s, kMaxTimeoutS));
  }
  const StopRule& stop = options.run.stop;
  const auto check_seconds = [](std::string_view option, double value) {
    if (!(value >= 0) || value > kMaxCaseSeconds) {
      throw UsageError(fmt::format("{} {} is not from 0 to {:g} seconds", option, value, kMaxCaseSeconds));
    }
  };
  if (!(stop.max_noise_pct >= 0 && stop.max_noise_pct <= 100)) {
    throw UsageError(fmt::format("--max-noise {} is not a percentage from 0 (fixed iterations) to 100",
                                 stop.max_noise_pct));
  }
  if (!(stop.max_mean_noise_pct > 0 && stop.max_mean_noise_pct <= 100)) {
    throw UsageError(fmt::format("--max-mean-noise {} is not a percentage above 0 and at most 100",
                                 stop.max_mean_noise_pct));
  }
  check_range("--min-iters", stop.min_samples, 1, kMaxIterations);
  check_seconds("--min-time", stop.min_time_s);
  check_seconds("--max-time", stop.max_time_s);
  if (stop.adaptive() && stop.min_time_s > stop.max_time_s) {
    throw UsageError(fmt::format("--min-time {} is longer than --max-time {}", stop.min_time_s, stop.max_time_s));
  }
  if (!(line.confidence_pct >= 50 && line.confidence_pct <= kMaxConfidencePct)) {
    throw UsageError(fmt::format("--confidence {} is not a percentage from 50 to {:g}",
                                 line.confidence_pct, kMaxConfidencePct));
  }
  options.run.confidence = line.confidence_pct / 100;
  check_range("--repeat", options.repeats, 1, kMaxRepeats);
  if (options.run.timing == IterationTiming::loop && options.run.graph_replays > 0) {
    throw UsageError("--timing loop with --graph: graph replays are timed per replay already");
  }
  parse_gpu_counts(options.gpus, 1);  // syntax only; counts are checked against the GPUs later
  if (options.roots != "all") parse_non_negative_int(options.roots, "--root");
  check_launcher_name(options.launcher);
  return std::move(options);
}

}  // namespace collbench
