// Oneshot (handbuilt_oneshot.cpp): its tuning, the settings that set it, when it launches
// programmatically, and its maker for a tuning of one's own.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "algorithms/handbuilt_algorithms.hpp"
#include "algorithms/peer_tuning.hpp"
#include "algorithms/tuning_settings.hpp"
#include "core/algorithm.hpp"

namespace collbench {

// Whether oneshot launches its kernel with programmatic dependent launch (kernels/
// programmatic_launch.cuh), directly rather than through a one-kernel graph: never, always, or
// (`by_size`) when the kernel is long enough to hide the next launch (oneshot_is_programmatic).
enum class ProgrammaticLaunch { off, on, by_size };

// by_size: programmatic from this many bytes sent to peers per rank ((nranks - 1) x buffer). A
// programmatic launch costs the host a fixed few microseconds, a one-kernel graph's time grows
// with the kernel: the crossover measured on 2-4 GPUs (kernels/README.md, oneshot).
constexpr std::size_t kOneshotProgrammaticMinPeerBytes = 96 << 10;
bool oneshot_is_programmatic(ProgrammaticLaunch mode, int nranks, std::size_t bytes);

// The defaults are the measured best (kernels/README.md, "oneshot").
struct OneshotTuning {
  // Launched directly with programmatic dependent launch, so back-to-back launches overlap the
  // next one's scheduling with the current one's work (then `launch` does not apply).
  ProgrammaticLaunch programmatic = ProgrammaticLaunch::by_size;
  PeerKernelLaunch launch = PeerKernelLaunch::graph;
  PeerTuning peer;

  void validate() const {}  // every value its settings take can run
};

// Its settings, each bound to a field above: the descriptor's, in --help and CSV order.
const TuningSettings<OneshotTuning>& oneshot_settings();

std::unique_ptr<HandbuiltAlgorithm> make_oneshot(const std::vector<RankContext>& ranks,
                                                 const OneshotTuning& tuning);

}  // namespace collbench
