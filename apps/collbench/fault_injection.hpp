// The hidden, test-only --inject-fault: its grammar, and what a fault asks of each rank of a case,
// so that the runner asks one question per rank and its measuring code stays free of fault logic.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "measure/measurement_hooks.hpp"

namespace collbench {

// Test-only faults (hidden --inject-fault): each must be caught the way a real one would be.
enum class FaultKind {
  none,
  corrupt_output,   // one output element changed after the checked collective: #wrong must be 1
  fail_allocation,  // buffer allocation reports out-of-memory: status oom, the sweep goes on
  skip_rank,        // the rank skips one timed collective: the others hang until the timeout
  slow_rank,        // an SmHog holds `amount` of the rank's GPU's SMs during the timed batches
  late_rank,        // the rank's worker sleeps `amount` ms before each timed sample
};

// The fault of --inject-fault KIND[:RANK[:AMOUNT]]. A rank at or above a case's rank count
// matches none of its ranks: the case runs clean.
struct InjectedFault {
  FaultKind kind = FaultKind::none;
  int rank = -1;      // the rank it strikes; -1 with skip_rank: each case's last rank
  double amount = 0;  // slow_rank: share of the SMs, (0, 1]; late_rank: milliseconds, >= 0
};

// KIND[:RANK[:AMOUNT]]; empty: no fault. corrupt_output, fail_allocation, skip_rank[:R] (the
// case's last rank without R), slow_rank:R[:FRACTION] (0.5 of the SMs), late_rank:R[:MS] (2 ms).
// Throws UsageError, one line naming the text: unknown kind, bad rank, fraction outside (0, 1],
// delay outside 0 to kMaxLateMs.
InjectedFault parse_injected_fault(const std::string& text);

// Half the SMs already makes a 64 MiB all_reduce 17x slower (2x H200, NCCL 2.28.9). Not 0.9: NCCL
// launches its kernels in thread-block clusters on Hopper, and with 119 of 132 SMs held no cluster
// found room, so the case hung instead of slowing down (fine with NCCL_CGA_CLUSTER_SIZE=1).
inline constexpr double kDefaultSlowShare = 0.5;
inline constexpr double kDefaultLateMs = 2;
inline constexpr double kMaxLateMs = 10'000;

// What the fault asks of rank `rank` of a case of `ranks` ranks (nothing, for every other rank).
struct RankFault {
  bool skips_one =
      false;            // leaves out one collective of the first timed batch (not alone: no peer)
  double sm_share = 0;  // > 0: an SmHog holds this share of its GPU's SMs in warm-up and timing
  std::chrono::duration<double, std::milli> delay{0};  // slept before each timed sample
};
RankFault rank_fault(const InjectedFault& fault, int rank, int ranks);

// The hooks that make `fault` happen in a case of `ranks` ranks, of which this process drives
// those numbered `local_ranks` (by local index); hooks that do nothing when there is no fault.
std::unique_ptr<MeasurementHooks> fault_hooks(const InjectedFault& fault,
                                              const std::vector<int>& local_ranks, int ranks);

}  // namespace collbench
