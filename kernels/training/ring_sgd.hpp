// The hand-built push ring all-reduce with the SGD update fused in (ring_sgd.cu): the training
// step's last bucket, whose update would otherwise start only once the whole all-reduce is done.
#pragma once

#include <cuda_runtime.h>

#include "ring_all_reduce.hpp"
#include "sgd_momentum.hpp"

namespace collbench::kernels::training {

// Enqueues one push-ring all-reduce of `ring` (its arguments as the ring algorithm prepared them)
// whose CTAs also apply `target`'s SGD step to each piece of the output as soon as that piece is
// final on this rank, element i of the output being the gradient of element i of `target`. The
// result is the all-reduce's, and the parameters are bitwise those launch_sgd_momentum would
// write after it. Throws std::invalid_argument for what launch_ring_all_reduce refuses, the pull
// protocol, a reduction other than sum or avg, or element types that differ between the two.
void launch_ring_all_reduce_sgd(const RingRankArgs& ring, const SgdTarget& target,
                                cudaStream_t stream);

}  // namespace collbench::kernels::training
