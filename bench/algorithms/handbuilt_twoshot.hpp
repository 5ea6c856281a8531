// Twoshot (handbuilt_twoshot.cpp): its tuning, the settings that set it, its split of a case into
// CTAs and slices, and its maker for a tuning of one's own.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "algorithms/handbuilt_algorithms.hpp"
#include "algorithms/peer_tuning.hpp"
#include "algorithms/tuning_settings.hpp"
#include "core/algorithm.hpp"
#include "ring/ring_schedule.hpp"
#include "twoshot/twoshot_all_reduce.hpp"

namespace collbench {

// The defaults are the measured best (kernels/README.md, "twoshot"). Staging is (ranks - 1) x
// CTAs x 2 slices of slice_bytes per rank.
struct TwoshotTuning {
  int ctas = 64;                          // CTAs per launch, at most
  std::size_t slice_bytes = 64 << 10;     // a CTA's piece of each chunk per slice, aimed at
  std::size_t min_part_bytes = 32 << 10;  // fewer CTAs below this much of a chunk per CTA
  PeerKernelLaunch launch = PeerKernelLaunch::graph;
  PeerTuning peer;

  // Throws UsageError naming the setting when a value set directly (tests) is out of range: CTAs
  // below 1.
  void validate() const;
};

// Its settings, each bound to a field above: the descriptor's, in --help and CSV order.
const TuningSettings<TwoshotTuning>& twoshot_settings();

// Twoshot's split of `shape` on GPUs of `sm_count` SMs (the ring's rule, split_into_pieces): at
// most `ctas` parts and slices of about `slice_bytes`.
kernels::RingGeometry twoshot_geometry(const CaseShape& shape, const TwoshotTuning& tuning,
                                       int sm_count);

// The kernel arguments the twoshot algorithm `algorithm` prepared for local rank `rank`, for a
// caller that launches the kernel itself with the training step's update sharded into it. Valid
// until the next prepare() or release(). Throws std::invalid_argument when `algorithm` is not
// twoshot, std::out_of_range for a rank it does not drive.
const kernels::TwoshotRankArgs& twoshot_rank_arguments(const CollectiveAlgorithm& algorithm,
                                                       int rank);
// Where every rank's entry of `pointers` (one per rank of `ranks`, this process's ranks, as
// prepare() was given them) appears to each of `ranks`, through twoshot's peer mappings:
// table[local][rank]. Collective across processes like prepare(), after it; valid until release().
// Throws std::invalid_argument when `algorithm` is not twoshot.
std::vector<std::vector<void*>> twoshot_peer_table(CollectiveAlgorithm& algorithm,
                                                   const std::vector<RankContext>& ranks,
                                                   const std::vector<void*>& pointers);

// Throws UsageError when `tuning` does not validate.
std::unique_ptr<HandbuiltAlgorithm> make_twoshot(const std::vector<RankContext>& ranks,
                                                 const TwoshotTuning& tuning);

}  // namespace collbench
