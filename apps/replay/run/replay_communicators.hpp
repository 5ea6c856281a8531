// The workload's communicators rebuilt on the GPUs: for each, in id order on every rank, an
// ncclCommSplit of the world communicator (color: the id for its members, NCCL_SPLIT_NOCOLOR for
// the others; key: the rank's place in the communicator's ranks, so communicator ranks are the
// recorded ones). In one process, every local rank's split of one communicator is in one NCCL
// group (split_communicators).
#pragma once

#include <vector>

#include "core/algorithm.hpp"
#include "runtime/nccl_communicator.hpp"
#include "workload/communicator_table.hpp"

namespace collbench::replay {

// Per local rank of `world` (each context's rank: its global rank), one communicator per workload
// communicator id; a null one where the rank is no member. Each split with `config` (none: NCCL's
// defaults), under whatever NCCL_ALGO and NCCL_PROTO are set now. Collective over every process.
std::vector<std::vector<NcclCommunicator>> split_workload_communicators(
    const std::vector<RankContext>& world, const CommunicatorTable& communicators,
    const ncclConfig_t* config);

}  // namespace collbench::replay
