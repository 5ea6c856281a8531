// What an op becomes when its communicator grows or shrinks with the data-parallel replicas (a DP
// group, the world): the model stays the same, so a collective keeps its whole buffer. all_reduce,
// broadcast and reduce keep their count; all_gather, reduce_scatter, alltoall, gather and scatter
// share the same whole among more (fewer) ranks, their count scaled and rounded up as FSDP pads;
// a root must still be a rank. Sends, receives and alltoallv name particular peers, which have no
// counterpart among new replicas: they cannot be rescaled. On a TP group an op stays as it is.
#pragma once

#include <optional>
#include <string>

#include "workload/workload_records.hpp"

namespace collbench::replay {

// Updates op (count, root) for its communicator going from old_size to new_size ranks; sets
// `rounded` when a whole did not split evenly. Returns why it cannot be rescaled, or nothing.
std::optional<std::string> rescale_op(WorkloadOp& op, int old_size, int new_size, bool& rounded);

}  // namespace collbench::replay
