// A capability an all-reduce may offer (CollectiveAlgorithm::fused_update): its prepared kernel,
// for a caller that launches it itself with the training step's SGD update fused into it
// (kernels/training/twoshot_sgd.hpp), and where the caller's buffers appear to every rank.
#pragma once

#include <vector>

#include "core/algorithm.hpp"
#include "twoshot/twoshot_all_reduce.hpp"

namespace collbench {

class FusedUpdate {
 public:
  // The kernel arguments the algorithm prepared for rank `rank`, one it drives: the two-shot
  // all-reduce the fused kernel runs. Valid until the next prepare() or release().
  virtual const kernels::TwoshotRankArgs& rank_arguments(int rank) const = 0;
  // Where every rank's entry of `pointers` (one per rank of `ranks`, this process's ranks, as
  // prepare() was given them) appears to each of `ranks`, through the algorithm's peer mappings:
  // table[local][rank]. Collective across processes like prepare(), after it; valid until
  // release().
  virtual std::vector<std::vector<void*>> peer_table(const std::vector<RankContext>& ranks,
                                                     const std::vector<void*>& pointers) = 0;

 protected:
  ~FusedUpdate() = default;  // owned as the algorithm it is part of
};

}  // namespace collbench
