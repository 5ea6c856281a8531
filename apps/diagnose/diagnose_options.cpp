// collbench_diagnose's settings table, the common flags it takes, and its test-only faults.
#include "diagnose_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

#include "core/byte_size.hpp"
#include "core/errors.hpp"
#include "frame/settings/command_line.hpp"

namespace collbench::diagnose {
namespace {

constexpr int kMaxIterations = 32;  // the group probe's records hold that many
constexpr int kMaxArrivalIterations = 1000;
// Each gated latency sample enqueues two launches per round trip: the launch queue (about a
// thousand) must hold them before the gate opens.
constexpr int kMaxRoundTrips = 50;
// A probe that may wait longer than a day for a rank waits on a typo.
constexpr double kMaxProbeTimeoutS = 86'400;

std::size_t parse_size(const std::string& text, const char* option, std::size_t minimum) {
  const std::size_t bytes = parse_byte_size(text, option);
  if (bytes < minimum) {
    throw UsageError(fmt::format("{} {} is less than {} B", option, shown_value(text), minimum));
  }
  return bytes;
}

// A byte size of at least `minimum`, into `field`.
Setting<DiagnoseOptions> bytes_setting(const char* option, const char* default_value,
                                       const char* help, std::size_t minimum,
                                       std::size_t DiagnoseOptions::*field) {
  return Setting<DiagnoseOptions>(option, ValueKind::text, default_value, help)
      .to([option, minimum, field](DiagnoseOptions& o, const std::string& v) {
        o.*field = parse_size(v, option, minimum);
      });
}

// A threshold of the verdict (verdict.hpp), above 0 and at most the largest value that makes sense.
Setting<DiagnoseOptions> threshold_setting(const ThresholdSetting& threshold) {
  std::string option = std::string("--") + threshold.name;
  std::replace(option.begin(), option.end(), '_', '-');
  std::string help = threshold.help;
  help[0] = static_cast<char>(std::toupper(help[0]));
  return Setting<DiagnoseOptions>(option, ValueKind::real,
                                  fmt::format("{}", Thresholds{}.*threshold.value), help)
      .above(0, threshold.most)
      .to([value = threshold.value](DiagnoseOptions& o, const std::string& v) {
        o.thresholds.*value = std::stod(v);
      });
}

std::vector<Setting<DiagnoseOptions>> make_settings() {
  using O = DiagnoseOptions;
  using T = ValueKind;
  std::vector<Setting<O>> s;
  s.push_back(bytes_setting("--copy-bytes", "256M", "Bytes of each GPU's local copy", 1 << 20,
                            &O::copy_bytes));
  s.push_back(Setting<O>("--copy-window-ms", T::real, "50",
                         "The local copy runs back to back for at least this long (another "
                         "process's time slices count)")
                  .above(0, 60'000)
                  .to([](O& o, const std::string& v) { o.copy_window_ms = std::stod(v); }));
  s.push_back(bytes_setting("--pair-bytes", "256M", "Bytes of the pair bandwidth transfer", 1 << 20,
                            &O::pair_bytes));
  s.push_back(bytes_setting("--latency-bytes", "8", "Bytes of the pair latency transfer", 1,
                            &O::latency_bytes));
  s.push_back(Setting<O>("--latency-round-trips", T::integer, "20",
                         "Round trips back to back in one gated launch, per latency sample")
                  .within(1, kMaxRoundTrips)
                  .to([](O& o, const std::string& v) { o.latency_round_trips = std::stoi(v); }));
  s.push_back(bytes_setting("--collective-bytes", "256M", "Bytes of the collectives", 1 << 20,
                            &O::collective_bytes));
  s.push_back(bytes_setting("--arrival-bytes", "1M",
                            "Bytes of the all_reduce that times when each rank arrives", 4,
                            &O::arrival_bytes));
  s.push_back(Setting<O>("--arrival-iterations", T::integer, "30",
                         "Iterations of the arrival probe, each launched by every rank at the same "
                         "scheduled moment")
                  .within(3, kMaxArrivalIterations)
                  .to([](O& o, const std::string& v) { o.arrival_iterations = std::stoi(v); }));
  s.push_back(
      Setting<O>("-n,--iters", T::integer, "5",
                 "Timed iterations of each large probe (pairs at the small size: 4 times as many)")
          .within(1, kMaxIterations)
          .to([](O& o, const std::string& v) { o.iterations = std::stoi(v); }));
  for (const ThresholdSetting& threshold : threshold_settings())
    s.push_back(threshold_setting(threshold));
  s.push_back(Setting<O>("--no-rechecks", T::flag, "",
                         "Do not measure a flagged figure again alone before it names a suspect "
                         "(faster, less sure)")
                  .to([](O& o, const std::string& v) { o.rechecks = v != "true"; }));
  s.push_back(Setting<O>("--json", T::text, "",
                         "Write the diagnosis (figures, expectations, suspects) as JSON")
                  .to([](O& o, const std::string& v) { o.json_path = v; }));
  s.push_back(Setting<O>("--from", T::text, "",
                         "Judge the measurements of a saved diagnosis (--json) again with these "
                         "thresholds (and --link-peak, when given); no GPU")
                  .to([](O& o, const std::string& v) { o.from_path = v; }));
  s.push_back(
      Setting<O>("--link-peak", T::text, "",
                 "collbench_linkpeak CSV of a healthy machine of this kind: a pair bandwidth "
                 "below --link-peak-share of its peak is slow even when every pair is (two "
                 "GPUs, one link)")
          .to([](O& o, const std::string& v) { o.link_peak_path = v; }));
  // Test-only faults: no help keeps them out of --help.
  s.push_back(Setting<O>("--inject", T::text, "", "").to([](O& o, const std::string& v) {
    o.fault = parse_injected_fault(v);
  }));
  return s;
}

const std::vector<Setting<DiagnoseOptions>>& diagnose_settings() {
  static const std::vector<Setting<DiagnoseOptions>> settings = make_settings();
  return settings;
}

const CommonFlags& diagnose_common_flags() {
  static const CommonFlags flags = {
      {CommonFlag::timeout, "30",
       "Seconds a probe may take before the ranks that did not come are named",
       number_above(0, kMaxProbeTimeoutS,
                    fmt::format("above 0 and at most {} seconds", kMaxProbeTimeoutS))},
      {CommonFlag::launcher, "", ""},
      {CommonFlag::list, "", "Say what would be probed, without touching a GPU"},
  };
  return flags;
}

void declare(CommandLine& line, DiagnoseOptions& options) {
  line.add(diagnose_settings(), options);
  line.add(common_settings(diagnose_common_flags()), options.common, "Run and output");
}

const CommandLineDeclaration<DiagnoseOptions> kCommandLine = {
    "collbench_diagnose",
    "collbench_diagnose: find the slow GPU, the slow link or node, the straggling or missing "
    "rank. Each GPU alone, every pair of ranks through NCCL send/recv, the collectives on all "
    "ranks and on halves of a slow group, and when each rank arrives at a collective. Every figure "
    "is judged against the others of its kind on this machine and their spread, and a flagged one "
    "is measured again alone before it names a suspect. Exit status 0: no suspect, 1: suspects.",
    declare};

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
  if (used == 0 || used != parts[1].size() || fault.rank < 0)
    throw bad("the rank is not a non-negative integer");
  if (parts.size() == 3) {
    if (fault.kind == InjectedFault::Kind::missing_rank) throw bad("missing_rank takes no amount");
    char* end = nullptr;
    fault.amount = std::strtod(parts[2].c_str(), &end);
    const bool share = fault.kind == InjectedFault::Kind::slow_gpu;
    const bool valid =
        end && *end == '\0' && !parts[2].empty() && std::isfinite(fault.amount) &&
        (share ? fault.amount > 0 && fault.amount <= 1 : fault.amount > 0 && fault.amount <= 1000);
    if (!valid)
      throw bad(share ? "the SM share is not in (0, 1]" : "the delay is not in (0, 1000] ms");
  }
  fault.text = text;
  return fault;
}

std::string diagnose_help() {
  return kCommandLine.help();
}

DiagnoseOptions parse_diagnose_options(const std::vector<std::string>& args) {
  return kCommandLine.parse(args);
}

}  // namespace collbench::diagnose
