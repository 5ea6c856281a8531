// collbench_diagnose's command line: probe sizes, thresholds, outputs, launcher, and the hidden
// test-only faults that prove the diagnosis.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "frame/settings/common_flags.hpp"
#include "verdict/verdict.hpp"

namespace collbench::diagnose {

// Test-only faults (hidden --inject): each must come out as the suspect it imitates.
struct InjectedFault {
  enum class Kind { none, slow_gpu, late_rank, missing_rank } kind = Kind::none;
  int rank = -1;
  // slow_gpu: share of the SMs taken (0.5: with 0.9 NCCL's cluster-launched kernels found no room
  // on H200 and hung); late_rank: milliseconds (2).
  double amount = 0;
  std::string text;  // as given, for the report's "injected" field ("" when none)
};

struct DiagnoseOptions {
  std::size_t copy_bytes = std::size_t{256} << 20;
  // The copy runs back to back for at least this long: time slices the GPU gives another
  // process's work last milliseconds, and a shorter copy would fall between them.
  double copy_window_ms = 50;
  std::size_t pair_bytes = std::size_t{256} << 20;
  std::size_t latency_bytes = 8;
  int latency_round_trips = 20;  // inside one gated launch, per latency sample
  std::size_t collective_bytes = std::size_t{256} << 20;
  std::size_t arrival_bytes = std::size_t{1} << 20;
  int arrival_iterations = 30;
  int iterations = 5;
  Thresholds thresholds;  // each a --option of its own (verdict.hpp, threshold_settings)
  bool rechecks = true;   // every flagged figure is measured again alone before it counts
  std::string json_path;
  std::string from_path;       // --from: judge a saved diagnosis again, no GPU
  std::string link_peak_path;  // --link-peak: a healthy machine's collbench_linkpeak CSV
  InjectedFault fault;
  CommonSettings common;  // --timeout (a probe's), --launcher, --list
};

// Parses the arguments (args[0] is the program); throws UsageError with one line naming the bad
// value.
DiagnoseOptions parse_diagnose_options(const std::vector<std::string>& args);
std::string diagnose_help();
// "slow_gpu:1", "slow_gpu:1:0.8", "late_rank:0:5", "missing_rank:1".
InjectedFault parse_injected_fault(const std::string& text);

}  // namespace collbench::diagnose
