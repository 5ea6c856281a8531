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

// Throws UsageError when `tuning` does not validate.
std::unique_ptr<HandbuiltAlgorithm> make_twoshot(const std::vector<RankContext>& ranks,
                                                 const TwoshotTuning& tuning);

}  // namespace collbench
