// What --check fills an op's inputs with and checks its output against (kernels/test_values.cuh,
// the sweep's test values; the rule is the registry's): a seed that every member of a collective
// and both ends of a send/recv pair share and that differs from op to op, so that an output an
// earlier op left in the same buffer cannot pass; the pattern of the op's type, reduction, root,
// count and communicator size; and which ranks' outputs are checked.
#pragma once

#include <cstdint>

#include "test_values.cuh"
#include "workload/workload_records.hpp"

namespace collbench::replay {

// `comm_rank`: the op's rank in its communicator.
std::uint64_t op_seed(const WorkloadOp& op, int comm_rank);

// The pattern every member fills and checks with; alltoallv's receive segments are the caller's
// to add (PeerTraffic::receive_segments, on the GPU).
kernels::PatternParams op_pattern(const WorkloadOp& op, int comm_rank, int comm_size);

// The registry's rule; a recv's: broadcast's, with its sender as the root (op_pattern sets it), for
// it holds its sender's input.
kernels::OutputRule op_output_rule(const WorkloadOp& op);

// Whether this rank has an output to check: not a send, not a non-root of reduce or gather.
bool op_output_checked(const WorkloadOp& op, int comm_rank);

}  // namespace collbench::replay
