// Reading a workload whole.
#include "plan/workload_ops.hpp"

namespace collbench::replay {

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
