// Test support: a replayed job made up in code, for the report rows' tests and the tool that
// writes them as a CSV: two ranks on one communicator with every kind of row (one dtype's calls
// beside another's, alltoallv of per-rank counts, broadcasts from two roots, a send/recv pair),
// and timed iterations with a small, known jitter.
#pragma once

#include <cstdint>
#include <vector>

#include "plan/rank_results.hpp"
#include "plan/workload_ops.hpp"

namespace collbench::replay::testing {

// Each rank, on stream 0: all_reduce float x2 (1024), all_reduce bfloat16 (2048), alltoallv float
// (rank 0 sends 1, 2 and receives 1, 3; rank 1 sends 3, 4 and receives 2, 4), broadcast float (64)
// from root 0 then from root 1, and rank 0's send of 256 floats to rank 1's recv.
WorkloadOps mixed_job();
// The ordinal, on every rank, of the bfloat16 all_reduce.
inline constexpr std::size_t kBfloat16AllReduce = 2;

struct FabricatedTiming {
  int iterations = 30;
  // The op of this ordinal (on every rank) takes `slowdown` times as long.
  std::size_t slowed_op = kBfloat16AllReduce;
  double slowdown = 1;
  // Wrong elements of rank 1's op of this ordinal (--check); none when 0.
  std::size_t wrong_op = 0;
  std::uint64_t wrong_elements = 0;
};

// Every op back to back on its rank, from 10 us up by 10 us per ordinal (rank 1's 1 us longer),
// within +-0.5% per iteration; the window 2 us beyond the last op.
std::vector<RankResults> fabricated_results(const WorkloadOps& workload,
                                            const FabricatedTiming& timing);

}  // namespace collbench::replay::testing
