// Synthetic workloads for tests.
#include "workload_builders.hpp"

namespace collbench::replay::testing {

WorkloadHeader synthetic_header(int world_size) {
  WorkloadHeader header;
  header.source = "synthetic";
  header.world_size = world_size;
  return header;
}

WorkloadOp collective_op(int rank, int comm, std::int64_t seq, ReplayOp op, std::uint64_t count,
                         int stream) {
  WorkloadOp built;
  built.rank = rank;
  built.comm = comm;
  built.seq = seq;
  built.op = op;
  built.dtype = DataType::float32;
  built.count = count;
  if (spec_of(op).reduces) built.redop = ReduceOp::sum;
  if (spec_of(op).rooted) built.root = 0;
  built.stream = stream;
  built.where = "synthetic:" + std::to_string(rank) + ":" + std::to_string(seq);
  return built;
}

WorkloadOp p2p_op(int rank, int comm, ReplayOp direction, int peer, std::int64_t seq,
                  std::uint64_t count, int stream) {
  WorkloadOp built = collective_op(rank, comm, seq, direction, count, stream);
  built.peer = peer;
  return built;
}

WorkloadOp in_group(WorkloadOp op, std::int64_t group) {
  op.group = group;
  return op;
}

WorkloadOp timed(WorkloadOp op, double start_us, double end_us) {
  op.times.start_us = start_us;
  op.times.end_us = end_us;
  return op;
}

namespace {

void add_rank_ops(int rank, int data_parallel, int tensor_parallel, GridWorkload& grid) {
  const int replica = rank / tensor_parallel;
  const int tp_rank = rank % tensor_parallel;
  const int tp_comm = 1 + replica;
  const int dp_comm = 1 + data_parallel + tp_rank;
  std::vector<WorkloadOp>& ops = grid.ops;
  ops.push_back(collective_op(rank, 0, 0, ReplayOp::broadcast, 64));
  ops.push_back(collective_op(rank, tp_comm, 0, ReplayOp::all_reduce, 4096));
  ops.push_back(collective_op(rank, tp_comm, 1, ReplayOp::all_reduce, 8192));
  if (tensor_parallel > 1) {
    const int next = (tp_rank + 1) % tensor_parallel;
    const int previous = (tp_rank + tensor_parallel - 1) % tensor_parallel;
    ops.push_back(in_group(p2p_op(rank, tp_comm, ReplayOp::send, next, 0), 0));
    ops.push_back(in_group(p2p_op(rank, tp_comm, ReplayOp::recv, previous, 0), 0));
  }
  ops.push_back(collective_op(rank, dp_comm, 0, ReplayOp::all_reduce, 1 << 20));
  ops.push_back(collective_op(rank, dp_comm, 1, ReplayOp::all_gather, 1000));
  ops.push_back(collective_op(rank, dp_comm, 2, ReplayOp::reduce_scatter, 250));
}

}  // namespace

GridWorkload grid_workload(int data_parallel, int tensor_parallel) {
  const int world = data_parallel * tensor_parallel;
  GridWorkload grid;
  grid.header = synthetic_header(world);
  std::vector<int> all;
  for (int rank = 0; rank < world; ++rank) all.push_back(rank);
  grid.communicators.push_back({0, all, {"world"}});
  for (int replica = 0; replica < data_parallel; ++replica) {
    std::vector<int> block;
    for (int t = 0; t < tensor_parallel; ++t) block.push_back(replica * tensor_parallel + t);
    grid.communicators.push_back({1 + replica, block, {"tp"}});
  }
  for (int t = 0; t < tensor_parallel; ++t) {
    std::vector<int> stride;
    for (int replica = 0; replica < data_parallel; ++replica)
      stride.push_back(replica * tensor_parallel + t);
    grid.communicators.push_back({1 + data_parallel + t, stride, {"dp"}});
  }
  for (int rank = 0; rank < world; ++rank) add_rank_ops(rank, data_parallel, tensor_parallel, grid);
  return grid;
}

}  // namespace collbench::replay::testing
