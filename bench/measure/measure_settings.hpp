// How each case is measured: iterations, graphs, timing, the stop rule, checks, seed, timeout.
#pragma once

#include <cstdint>

#include "core/stop_rule.hpp"

namespace collbench {

// How iterations launched normally are timed (graph replays are always timed per replay).
enum class IterationTiming {
  each,  // an event between every two iterations: min, p50, p99 and max per operation
  // nccl-tests' way: events only around the whole timed loop, so no event's own GPU time (2.5-3
  // us on the lent H200s) falls between operations; only the mean exists, and min, p50, p99 and
  // max report it too.
  loop,
};

// How every case of a run is measured (collbench's -w -n -m -G --timing, the stop rule, -c, --seed,
// --timeout); the runner and the sinks read it.
struct MeasureSettings {
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
};

// Whether the timed iterations are timed as one loop (--timing loop, graph replays aside).
inline bool times_whole_loop(const MeasureSettings& settings) {
  return settings.timing == IterationTiming::loop && settings.graph_replays == 0;
}

}  // namespace collbench
