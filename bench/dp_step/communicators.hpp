// NCCL communicators for the training step: the harness's ncclCommInitAll path, or, when a CTA
// limit is asked for, ncclCommInitRankConfig with ncclConfig_t.maxCTAs (fewer SMs taken from the
// GEMMs that communication overlaps).
#pragma once

#include <vector>

#include "nccl_communicator.hpp"

namespace collbench::dp {

// One communicator per GPU 0..ranks-1, all driven by this process. `max_ctas` 0: NCCL's default.
std::vector<NcclCommunicator> create_step_communicators(int ranks, int max_ctas);

}  // namespace collbench::dp
