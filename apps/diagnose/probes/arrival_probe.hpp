// When each rank arrives at a collective: an all_reduce on all ranks, every iteration launched by
// every rank at the same scheduled moment of the host's clock and completed before the next, so
// that a host that launches late (CPU starvation: its thread wakes late) or a GPU that starts late
// (its SMs busy with other work) shows as it does in a job whose ranks meet every step. Judged by
// the rule reports/lib/arrival.hpp states.
#pragma once

#include <cstddef>
#include <vector>

#include "probes/rank_timing.hpp"
#include "verdict/figures.hpp"

namespace collbench::diagnose {

struct ArrivalProbeSettings {
  std::size_t bytes = std::size_t{1} << 20;
  int warmup = 3;
  int iterations = 30;
  double timeout_s = 30;
  bool multi_process = false;
  ProbeFaults faults;
};

// Every rank's arrival figures, on every process (ranks = the world's size).
std::vector<ArrivalFigures> probe_arrivals(Runner::RankSet& set, int ranks,
                                           const ArrivalProbeSettings& settings);

}  // namespace collbench::diagnose
