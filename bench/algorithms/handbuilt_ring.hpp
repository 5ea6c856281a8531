// The ring (handbuilt_ring.cpp): its tuning, the settings that set it, its split of a case into
// CTAs and slices (which twoshot's shares), and its maker for a tuning of one's own.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "algorithms/handbuilt_algorithms.hpp"
#include "algorithms/peer_tuning.hpp"
#include "algorithms/tuning_settings.hpp"
#include "core/algorithm.hpp"
#include "ring/ring_all_reduce.hpp"
#include "ring/ring_schedule.hpp"

namespace collbench {

// The defaults are the measured best (kernels/README.md, "ring").
struct RingTuning {
  // How the ring moves data: push (remote stores into the next rank's staging slots and output)
  // or pull (remote loads from the previous rank's buffers).
  kernels::RingProtocol protocol = kernels::RingProtocol::push;
  int max_ctas = 64;  // CTAs (parts) per launch, at most
  // From large_bytes of buffer up, at most large_ctas instead: more bytes in flight help large
  // buffers, while the training step's buckets need SMs left for the GEMMs.
  int large_ctas = 128;
  std::size_t large_bytes = std::size_t{512} << 20;
  std::size_t min_part_bytes = 32 << 10;  // fewer CTAs below this much of a chunk per CTA
  std::size_t slice_bytes = 512 << 10;    // a CTA's piece per slice (pipelining unit), aimed at
  int slots = 8;  // push: staging slots per CTA (a power of two, 2..64), each one piece
  PeerKernelLaunch launch = PeerKernelLaunch::graph;
  PeerTuning peer;

  // Throws UsageError naming the setting when a value set directly (tests) is out of range:
  // slots not a power of two in 2..64, CTA counts below 1.
  void validate() const;
};

// Its settings, each bound to a field above: the descriptor's, in --help and CSV order.
const TuningSettings<RingTuning>& ring_settings();

// The ring's split of `shape` on GPUs of `sm_count` SMs: enough CTAs (parts) that each moves at
// least min_part_bytes of a chunk, at most one per SM (every CTA must be resident: it may wait for
// its peer CTAs) and at most max_ctas (large_ctas from large_bytes of buffer up); enough slices
// that each CTA's piece is about slice_bytes.
kernels::RingGeometry ring_geometry(const CaseShape& shape, const RingTuning& tuning, int sm_count);
// What the ring's and twoshot's splits share: enough parts that each moves at least
// `min_part_bytes` of a chunk, at most `max_ctas` and `sm_count`; enough slices (at most
// `max_slices`) that each part's piece of a chunk is about `slice_bytes`.
kernels::RingGeometry split_into_pieces(const CaseShape& shape, int max_ctas,
                                        std::size_t min_part_bytes, std::size_t slice_bytes,
                                        int max_slices, int sm_count);

// Throws UsageError when `tuning` does not validate.
std::unique_ptr<HandbuiltAlgorithm> make_ring(const std::vector<RankContext>& ranks,
                                              const RingTuning& tuning);

}  // namespace collbench
