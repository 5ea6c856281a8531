// The two-shot all-reduce with the SGD update sharded into it (twoshot_sgd.cu): the training
// step's last bucket, whose update would otherwise start only once the whole all-reduce is done
// and then run on every rank over the whole bucket.
#pragma once

#include <cuda_runtime.h>

#include "sgd_momentum.hpp"
#include "twoshot/twoshot_all_reduce.hpp"

namespace collbench::kernels::training {

struct TwoshotSgdTarget {
  SgdTarget own;                 // this rank's parameters, element i the gradient's element i
  void* weights[kMaxPeerRanks];  // every rank's model weights (own.weights at entry rank), as
                                 // this rank addresses them, element i the same
};

// Enqueues one two-shot all-reduce of `twoshot` (its arguments as the twoshot algorithm prepared
// them) in which each rank, as owner of chunk ring_chunk(geometry, rank), applies `target.own`'s
// SGD step to that chunk as soon as each piece of it is reduced, and stores the new model weights
// into every rank's `target.weights` instead of storing the gradient into every rank's output.
// Afterwards:
// - every rank's model weights are bitwise those launch_sgd_momentum would write after the plain
//   all-reduce (one rank computes each, from the same bits);
// - a rank's momentum and master weights are current for its own chunk only: the chunk's owner is
//   the same every launch, so the owner's state follows exactly the replicated update's;
// - the reduced gradient of a chunk is in its owner's output only.
// Throws std::invalid_argument for what launch_twoshot_all_reduce refuses, a reduction other than
// sum or avg, element types that differ between gradients and weights, or a missing rank's
// weights.
void launch_twoshot_all_reduce_sgd(const TwoshotRankArgs& twoshot, const TwoshotSgdTarget& target,
                                   cudaStream_t stream);

}  // namespace collbench::kernels::training
