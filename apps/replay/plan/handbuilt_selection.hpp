// Which of a workload's all_reduce ops a hand-built all-reduce (--algo) takes over: decided from
// every rank's ops, so that every process decides alike. One stays NCCL's when its communicator
// has one rank (nothing to exchange) or when any member issues it inside an NCCL group: a
// hand-built launch there would run while the group's NCCL calls wait for the group's end (its
// peers' sends, or ring_sendrecv's own, never started).
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <utility>

#include "plan/workload_ops.hpp"

namespace collbench::replay {

using OpKey = std::pair<int, std::int64_t>;  // (communicator, sequence number)

struct HandbuiltSelection {
  std::set<OpKey> taken;        // all_reduce ops run on the hand-built algorithm
  std::size_t grouped = 0;      // all_reduce ops left to NCCL because a member groups them
  std::size_t single_rank = 0;  // ... because their communicator has one rank

  // Whether `op` runs on the hand-built algorithm (sends and receives number their sequence
  // apart from collectives: the key alone is not enough).
  bool takes(const WorkloadOp& op) const {
    return op.op == ReplayOp::all_reduce && taken.count({op.comm, op.seq}) != 0;
  }
};

HandbuiltSelection select_handbuilt_all_reduces(const WorkloadOps& workload);

}  // namespace collbench::replay
