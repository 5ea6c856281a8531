// A checked workload read whole for the GPU replay: its header, its communicators and every rank's
// ops in issue order. The replay keeps events and figures per op anyway, so it holds the ops too:
// memory grows with the ops of the window replayed (the CPU subcommands stream instead).
#pragma once

#include <string>
#include <vector>

#include "workload/workload_reader.hpp"

namespace collbench::replay {

struct WorkloadOps {
  std::string path;
  WorkloadHeader header;
  CommunicatorTable communicators;
  std::vector<std::vector<WorkloadOp>> by_rank;  // [rank][ordinal: the place in its issue order]

  int world_size() const { return header.world_size; }
  // The op's rank in its communicator, and the communicator's size.
  int comm_rank(const WorkloadOp& op) const { return communicators.local_rank(op.comm, op.rank); }
  int comm_size(const WorkloadOp& op) const { return communicators.size_of(op.comm); }
};

// "all_reduce seq 12 on communicator 1 (ranks 0,2) (nccl.vm.5974.log:85)", "send to rank 1 seq 3
// on ...": an op as messages name it.
std::string describe_op(const WorkloadOps& workload, const WorkloadOp& op);

// Reads `path` (call check_workload on it first); throws UsageError for a bad line.
WorkloadOps read_workload_ops(const std::string& path, ReaderOptions options = {});

}  // namespace collbench::replay
