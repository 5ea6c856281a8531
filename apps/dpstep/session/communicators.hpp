// NCCL communicators for the training step. One process driving several GPUs: the harness's
// ncclCommInitAll path, or, when a CTA limit is asked for, ncclCommInitRankConfig with
// ncclConfig_t.maxCTAs (fewer SMs taken from the GEMMs that communication overlaps). One process
// per GPU: a split of the world communicator, with the same limit.
#pragma once

#include <vector>

#include "launch/process_group.hpp"
#include "runtime/nccl_communicator.hpp"

namespace collbench::dp {

// One communicator per GPU 0..ranks-1, all driven by this process. `max_ctas` 0: NCCL's default.
std::vector<NcclCommunicator> create_step_communicators(int ranks, int max_ctas);

// This process's communicator among world ranks [0, ranks) (one GPU per process), split from the
// world: one communicator, or none when this process's rank is not among them. Collective: every
// process of `group` calls it with the same `ranks`.
std::vector<NcclCommunicator> split_step_communicators(ProcessGroup& group, int ranks,
                                                       int max_ctas);

}  // namespace collbench::dp
