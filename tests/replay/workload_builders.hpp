// Test support: small workloads built in code (ops of a given kind on given ranks), for the
// check's and rescaling's tests.
#pragma once

#include <cstdint>
#include <vector>

#include "workload/workload_records.hpp"

namespace collbench::replay::testing {

WorkloadHeader synthetic_header(int world_size);

WorkloadOp collective_op(int rank, int comm, std::int64_t seq, ReplayOp op = ReplayOp::all_reduce,
                         std::uint64_t count = 1024, int stream = 0);
WorkloadOp p2p_op(int rank, int comm, ReplayOp direction, int peer, std::int64_t seq,
                  std::uint64_t count = 256, int stream = 0);
WorkloadOp in_group(WorkloadOp op, std::int64_t group);
// `op` recorded as running on the GPU from `start_us` to `end_us`.
WorkloadOp timed(WorkloadOp op, double start_us, double end_us);

// A DP x TP grid: the world (communicator 0), TP blocks (1 .. dp), DP strides (dp+1 .. dp+tp).
struct GridWorkload {
  WorkloadHeader header;
  std::vector<Communicator> communicators;
  std::vector<WorkloadOp> ops;
};
// Per rank, in order: a broadcast from 0 on the world, two all_reduces on its TP group, a grouped
// send/recv exchange with its TP neighbour (TP > 1), then on its DP group an all_reduce, an
// all_gather of 1000 and a reduce_scatter of 250 elements.
GridWorkload grid_workload(int data_parallel, int tensor_parallel);

}  // namespace collbench::replay::testing
