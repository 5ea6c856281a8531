// The collectives that matter on a group of ranks: all_reduce, all_gather, reduce_scatter and
// alltoall, through NCCL on communicators split from the world's (the world's own for everyone),
// with nccl-tests' bus bandwidth; every iteration starts on all members together (start gate).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "probes/rank_timing.hpp"
#include "verdict/figures.hpp"

namespace collbench::diagnose {

inline constexpr int kMaxGroupIterations = 32;

struct GroupProbeSettings {
  std::vector<std::string> ops = {"all_reduce", "all_gather", "reduce_scatter", "alltoall"};
  std::size_t bytes = std::size_t{256} << 20;
  int warmup = 2;
  int iterations = 5;  // at most kMaxGroupIterations
  double timeout_s = 30;
  bool multi_process = false;
  // The absent rank takes part in the warm-up (its connections exist, as a rank's do that stops
  // coming mid-job) and skips the timed iterations.
  ProbeFaults faults;
};

// One figure per op (expected_busbw_gbps left 0). Collective over every rank of the world:
// members sorted, world_ranks the world's size.
std::vector<GroupFigures> probe_group(Runner::RankSet& set, int world_ranks,
                                      const std::vector<int>& members,
                                      const GroupProbeSettings& settings);

}  // namespace collbench::diagnose
