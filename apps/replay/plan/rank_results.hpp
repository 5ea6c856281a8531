// One rank's measurements of a replay: per timed iteration, each op's interval on the GPU (from
// the iteration's start on the rank's lead stream; its kernels' or its events') and the window's
// wall, and the wall of the same iteration issued again plain; per op, the checked iteration's
// mismatches. Packed into one row of doubles to travel between processes (the engine's
// gather_by_rank), every rank's row as long as the longest, whatever its own op count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace collbench::replay {

struct OpInterval {
  double start_us = 0;
  double end_us = 0;
  double duration_us() const { return end_us - start_us; }
};

struct RankResults {
  std::vector<std::vector<OpInterval>> iterations;  // [timed iteration][ordinal]
  std::vector<double> window_us;                    // [timed iteration], timing the ops
  // [timed iteration]: issued plain (timing the ops costs a step several us: docs/replay.md,
  // "What the window is")
  std::vector<double> plain_window_us;
  std::vector<std::uint64_t> mismatches;  // [ordinal]; zeros without --check
};

// Doubles in one packed row: `ops` (the most ops of any rank) and `iterations` timed iterations.
std::size_t packed_results_size(std::size_t ops, std::size_t iterations);
// `results` must hold `iterations` iterations of at most `ops` ops each.
std::vector<double> pack_results(const RankResults& results, std::size_t ops,
                                 std::size_t iterations);
// The rank's own `rank_ops` ops back from a row packed for `ops`.
RankResults unpack_results(const std::vector<double>& packed, std::size_t rank_ops, std::size_t ops,
                           std::size_t iterations);

}  // namespace collbench::replay
