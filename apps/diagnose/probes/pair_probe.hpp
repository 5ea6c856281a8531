// Every ordered pair of ranks through NCCL send/recv: bandwidth at one large size, latency at one
// small size, in the rounds of pair_rounds() so that pairs sharing no GPU run at once. Both ends of
// every transfer are held by the rank set's start gate and released together, so when each end's
// host launched enters neither figure; latency is half a round trip, from round trips back to back
// inside one gated launch.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "probes/rank_timing.hpp"
#include "verdict/figures.hpp"

namespace collbench::diagnose {

struct PairProbeSettings {
  std::size_t bandwidth_bytes = std::size_t{256} << 20;
  std::size_t latency_bytes = 8;
  int warmup = 2;
  int bandwidth_iterations = 5;
  int latency_samples = 7;       // gated launches of round trips
  int latency_round_trips = 20;  // round trips in each
  double timeout_s = 30;
  bool multi_process = false;
  ProbeFaults faults;
};

// Every pair's figures, on every process (ranks = the world's size).
std::vector<PairFigures> probe_pairs(Runner::RankSet& set, int ranks,
                                     const PairProbeSettings& settings);

// The directed pairs `pairs` (src, dst) again, each alone (no other transfer at once), for a
// recheck; on every process, which must all call it with the same pairs.
std::vector<PairFigures> probe_pairs_alone(Runner::RankSet& set, int ranks,
                                           const std::vector<std::pair<int, int>>& pairs,
                                           const PairProbeSettings& settings);

}  // namespace collbench::diagnose
