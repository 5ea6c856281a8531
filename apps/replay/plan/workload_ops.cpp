// Reading a workload whole.
#include "plan/workload_ops.hpp"

#include <fmt/format.h>

namespace collbench::replay {

std::string describe_op(const WorkloadOps& workload, const WorkloadOp& op) {
  const std::string peer = op.op == ReplayOp::send   ? fmt::format(" to rank {}", *op.peer)
                           : op.op == ReplayOp::recv ? fmt::format(" from rank {}", *op.peer)
                                                     : "";
  return fmt::format("{}{} seq {} on {} ({})", name_of(op.op), peer, op.seq,
                     workload.communicators.describe(op.comm), op.where);
}

WorkloadOps read_workload_ops(const std::string& path, ReaderOptions options) {
  WorkloadReader reader(path, options);
  WorkloadOps ops;
  ops.path = path;
  ops.header = reader.header();
  ops.communicators = reader.communicators();
  ops.by_rank.resize(static_cast<std::size_t>(ops.header.world_size));
  while (const WorkloadOp* op = reader.next()) {
    ops.by_rank[static_cast<std::size_t>(op->rank)].push_back(*op);
  }
  return ops;
}

}  // namespace collbench::replay
