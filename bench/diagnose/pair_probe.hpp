// Every ordered pair of ranks through NCCL send/recv: bandwidth at one large size, latency at one
// small size, in the rounds of pair_rounds() so that pairs sharing no GPU run at once.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "figures.hpp"
#include "rank_timing.hpp"

namespace collbench::diagnose {

struct PairProbeSettings {
  std::size_t bandwidth_bytes = std::size_t{256} << 20;
  std::size_t latency_bytes = 8;
  int warmup = 2;
  int bandwidth_iterations = 5;
  int latency_iterations = 20;
  double timeout_s = 30;
  bool multi_process = false;
  ProbeFaults faults;
};

// Every pair's figures, on every process (ranks = the world's size).
std::vector<PairFigures> probe_pairs(Runner::RankSet& set, int ranks, const PairProbeSettings& settings);

}  // namespace collbench::diagnose
