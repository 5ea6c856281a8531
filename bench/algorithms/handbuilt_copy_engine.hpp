// copy_engine and copy_engine_ring (handbuilt_copy_engine.cpp): their tuning, the settings that
// set it, how a buffer splits into rounds, and their maker for a tuning of one's own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "algorithms/handbuilt_algorithms.hpp"
#include "algorithms/peer_tuning.hpp"
#include "algorithms/tuning_settings.hpp"
#include "copy_engine/reduce_sources.hpp"
#include "core/algorithm.hpp"

namespace collbench {

// The defaults are the measured best (kernels/README.md, "copy_engine").
struct CopyEngineTuning {
  // The buffer moves in equal rounds of at most this many bytes, one after another, so staging
  // holds one round. 64 MiB keeps a training-step bucket (one 32 MiB layer and its bias) in one
  // round: each round is a serial chain of copies, waits and a reduction.
  std::size_t round_bytes = 64 << 20;
  // 512-thread blocks of each reduction at most (kernels/copy_engine/reduce_sources.hpp).
  int reduce_blocks = kernels::kReduceSourcesMaxBlocks;
  PeerTuning peer;

  // Throws UsageError naming the setting when a value set directly (tests) is out of range:
  // reduce_blocks below 1.
  void validate() const;
};

// Their settings (both take the same), each bound to a field above: the descriptors', in --help
// and CSV order.
const TuningSettings<CopyEngineTuning>& copy_engine_settings();

// The rounds of a `count`-element buffer: the fewest rounds of at most `largest` elements, each
// `elements` long (a whole number of `unit`s) except the last, which is shorter but never empty.
// Equal rounds: a buffer just over one round must not pay a round's latency for its last few lines.
struct RoundSplit {
  std::uint64_t elements;
  int rounds;
};
RoundSplit equal_rounds(std::uint64_t count, std::uint64_t largest, std::uint64_t unit);

// Which ranks the copies go to: every other rank's (copy_engine), or only the next rank's, round
// a ring (copy_engine_ring).
enum class CopyEngineExchange { direct, ring };
// Throws UsageError when `tuning` does not validate.
std::unique_ptr<HandbuiltAlgorithm> make_copy_engine(const std::vector<RankContext>& ranks,
                                                     const CopyEngineTuning& tuning,
                                                     CopyEngineExchange exchange);

}  // namespace collbench
