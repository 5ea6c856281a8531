// The NCCL implementation of every collective: the registry's launch function, all local ranks
// inside one ncclGroupStart/ncclGroupEnd per iteration.
#pragma once

#include <memory>
#include <vector>

#include "core/algorithm.hpp"

namespace collbench {

std::unique_ptr<CollectiveAlgorithm> make_nccl_algorithm(const std::vector<RankContext>& ranks);

// Enqueues `aggregate` calls of shape.spec->launch_nccl on every local rank inside one group.
void launch_nccl_group(const std::vector<RankContext>& ranks,
                       const std::vector<RankBuffers>& buffers, const CaseShape& shape,
                       int aggregate);

}  // namespace collbench
