// collbench_diagnose's options through CLI11.
#include "diagnose_options.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

#include "core/byte_size.hpp"
#include "core/errors.hpp"
#include "frame/command_line.hpp"
#include "launch/launch_environment.hpp"

namespace collbench::diagnose {
namespace {

constexpr int kMaxIterations = 32;  // the group probe's records hold that many
constexpr int kMaxArrivalIterations = 1000;
// Each gated latency sample enqueues two launches per round trip: the launch queue (about a
// thousand) must hold them before the gate opens.
constexpr int kMaxRoundTrips = 50;

struct CommandLine {
  DiagnoseOptions options;
  std::string copy_bytes = "256M", pair_bytes = "256M", latency_bytes = "8", collective_bytes = "256M",
              arrival_bytes = "1M";
  bool no_rechecks = false;
  std::string inject;
  CLI::App app{
      "collbench_diagnose: find the slow GPU, the slow link or node, the straggling or missing rank. Each GPU "
      "alone, every pair of ranks through NCCL send/recv, the collectives on all ranks and on halves of a slow "
      "group, and when each rank arrives at a collective. Every figure is judged against the others of its kind on "
      "this machine and their spread, and a flagged one is measured again alone before it names a suspect. "
      "Exit status 0: no suspect, 1: suspects.",
      "collbench_diagnose"};
  CommandLine();
};

CommandLine::CommandLine() {
  app.add_option("--copy-bytes", copy_bytes, "Bytes of each GPU's local copy")->capture_default_str();
  app.add_option("--copy-window-ms", options.copy_window_ms,
                 "The local copy runs back to back for at least this long (another process's time slices count)")
      ->capture_default_str();
  app.add_option("--pair-bytes", pair_bytes, "Bytes of the pair bandwidth transfer")->capture_default_str();
  app.add_option("--latency-bytes", latency_bytes, "Bytes of the pair latency transfer")->capture_default_str();
  app.add_option("--latency-round-trips", options.latency_round_trips,
                 "Round trips back to back in one gated launch, per latency sample")
      ->capture_default_str();
  app.add_option("--collective-bytes", collective_bytes, "Bytes of the collectives")->capture_default_str();
  app.add_option("--arrival-bytes", arrival_bytes, "Bytes of the all_reduce that times when each rank arrives")
      ->capture_default_str();
  app.add_option("--arrival-iterations", options.arrival_iterations,
                 "Iterations of the arrival probe, each launched by every rank at the same scheduled moment")
      ->capture_default_str();
  app.add_option("-n,--iters", options.iterations, "Timed iterations of each large probe (pairs at the small "
                                                   "size: 4 times as many)")
      ->capture_default_str();
  for (const ThresholdSetting& setting : threshold_settings()) {
    std::string name = std::string("--") + setting.name;
    std::replace(name.begin(), name.end(), '_', '-');
    std::string help = setting.help;
    help[0] = static_cast<char>(std::toupper(help[0]));
    app.add_option(name, options.thresholds.*setting.value, help)->capture_default_str();
  }
  app.add_flag("--no-rechecks", no_rechecks,
               "Do not measure a flagged figure again alone before it names a suspect (faster, less sure)");
  app.add_option("--timeout", options.timeout_s, "Seconds a probe may take before the ranks that did not come "
                                                 "are named")
      ->capture_default_str();
  app.add_option("--json", options.json_path, "Write the diagnosis (figures, expectations, suspects) as JSON");
  app.add_option("--from", options.from_path,
                 "Judge the measurements of a saved diagnosis (--json) again with these thresholds; no GPU");
  app.add_option("--link-peak", options.link_peak_path,
                 "collbench_linkpeak CSV of a healthy machine of this kind: a pair bandwidth below "
                 "--link-peak-share of its peak is slow even when every pair is (two GPUs, one link)");
  app.add_option("--launcher", options.launcher, kLauncherOptionHelp)->capture_default_str();
  app.add_flag("--list", options.list, "Say what would be probed, without touching a GPU");
  app.add_option("--inject", inject)->group("");  // test-only faults, kept out of --help
}

std::size_t parse_size(const std::string& text, const char* option, std::size_t minimum) {
  const std::size_t bytes = parse_byte_size(text, option);
  if (bytes < minimum) throw UsageError(fmt::format("{} {} is less than {} B", option, text, minimum));
  return bytes;
}

}  // namespace

InjectedFault parse_injected_fault(const std::string& text) {
  InjectedFault fault;
  if (text.empty()) return fault;
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, ':');) parts.push_back(part);
  const auto bad = [&text](const std::string& why) {
    return UsageError(fmt::format("--inject '{}': {}", text, why));
  };
  if (parts.size() < 2 || parts.size() > 3) throw bad("expected KIND:RANK[:AMOUNT]");
  if (parts[0] == "slow_gpu") {
    fault.kind = InjectedFault::Kind::slow_gpu;
    fault.amount = 0.5;
  } else if (parts[0] == "late_rank") {
    fault.kind = InjectedFault::Kind::late_rank;
    fault.amount = 2;
  } else if (parts[0] == "missing_rank") {
    fault.kind = InjectedFault::Kind::missing_rank;
  } else {
    throw bad("the kind is not slow_gpu, late_rank or missing_rank");
  }
  std::size_t used = 0;
  try {
    fault.rank = std::stoi(parts[1], &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != parts[1].size() || fault.rank < 0) throw bad("the rank is not a non-negative integer");
  if (parts.size() == 3) {
    if (fault.kind == InjectedFault::Kind::missing_rank) throw bad("missing_rank takes no amount");
    char* end = nullptr;
    fault.amount = std::strtod(parts[2].c_str(), &end);
    const bool share = fault.kind == InjectedFault::Kind::slow_gpu;
    const bool valid = end && *end == '\0' && !parts[2].empty() && std::isfinite(fault.amount) &&
                       (share ? fault.amount > 0 && fault.amount <= 1 : fault.amount > 0 && fault.amount <= 1000);
    if (!valid) throw bad(share ? "the SM share is not in (0, 1]" : "the delay is not in (0, 1000] ms");
  }
  fault.text = text;
  return fault;
}

std::string diagnose_help() {
  return CommandLine().app.help();
}

DiagnoseOptions parse_diagnose_options(const std::vector<std::string>& args) {
  CommandLine line;
  parse_arguments(line.app, args);
  DiagnoseOptions& options = line.options;
  options.copy_bytes = parse_size(line.copy_bytes, "--copy-bytes", 1 << 20);
  options.pair_bytes = parse_size(line.pair_bytes, "--pair-bytes", 1 << 20);
  options.latency_bytes = parse_size(line.latency_bytes, "--latency-bytes", 1);
  options.collective_bytes = parse_size(line.collective_bytes, "--collective-bytes", 1 << 20);
  options.arrival_bytes = parse_size(line.arrival_bytes, "--arrival-bytes", 4);
  options.rechecks = !line.no_rechecks;
  if (!(options.copy_window_ms > 0 && options.copy_window_ms <= 60'000)) {
    throw UsageError(fmt::format("--copy-window-ms {} is not from 0 to 60000", options.copy_window_ms));
  }
  if (options.latency_round_trips < 1 || options.latency_round_trips > kMaxRoundTrips) {
    throw UsageError(fmt::format("--latency-round-trips {} is not from 1 to {}", options.latency_round_trips,
                                 kMaxRoundTrips));
  }
  if (options.arrival_iterations < 3 || options.arrival_iterations > kMaxArrivalIterations) {
    throw UsageError(fmt::format("--arrival-iterations {} is not from 3 to {}", options.arrival_iterations,
                                 kMaxArrivalIterations));
  }
  for (const ThresholdSetting& setting : threshold_settings()) {
    const double value = options.thresholds.*setting.value;
    if (!(value > 0 && value <= setting.most)) {
      std::string name = setting.name;
      std::replace(name.begin(), name.end(), '_', '-');
      throw UsageError(fmt::format("--{} {} is not above 0 and at most {:g}", name, value, setting.most));
    }
  }
  if (options.iterations < 1 || options.iterations > kMaxIterations) {
    throw UsageError(fmt::format("--iters {} is not from 1 to {}", options.iterations, kMaxIterations));
  }
  if (!(options.timeout_s > 0 && options.timeout_s <= 86400)) {
    throw UsageError(fmt::format("--timeout {} is not from 0 to 86400 seconds", options.timeout_s));
  }
  check_launcher_name(options.launcher);
  options.fault = parse_injected_fault(line.inject);
  return std::move(options);
}

}  // namespace collbench::diagnose
