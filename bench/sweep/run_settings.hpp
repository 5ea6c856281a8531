// How each case is measured: iterations, graphs, checks, seed, timeout (and test-only faults).
#pragma once

#include <cstdint>

#include "core/stop_rule.hpp"

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

// How iterations launched normally are timed (graph replays are always timed per replay).
enum class IterationTiming {
  each,  // an event between every two iterations: min, p50, p99 and max per operation
  // nccl-tests' way: events only around the whole timed loop, so no event's own GPU time (2.5-3
  // us on the lent H200s) falls between operations; only the mean exists, and min, p50, p99 and
  // max report it too.
  loop,
};

// The longest --timeout: deadlines this far ahead still fit the clocks' 64-bit nanoseconds.
inline constexpr double kMaxTimeoutS = 1e6;

struct RunSettings {
  int warmup_iters = 5;
  int iters = 20;  // a batch: iterations launched normally, or captured in the graph
  int agg_iters = 1;
  int graph_replays = 0;  // a batch of graph replays
  IterationTiming timing = IterationTiming::each;
  StopRule stop;  // one batch (fixed) or batches until the interval is narrow (--max-noise)
  double confidence = 0.95;  // of every row's interval
  int check_iters = 1;       // checked iterations after the timed ones (nccl-tests' -c N)
  std::uint64_t seed = 0x5EED;
  double timeout_s = 300.0;
  // Every rank's own samples come back to the reporting process (--json).
  bool keep_rank_samples = false;
  InjectedFault fault;
};

// Whether the timed iterations are timed as one loop (--timing loop, graph replays aside).
inline bool times_whole_loop(const RunSettings& settings) {
  return settings.timing == IterationTiming::loop && settings.graph_replays == 0;
}

}  // namespace collbench
