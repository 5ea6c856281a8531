// The operations a workload holds: collbench's collective names
// (bench/core/collective_registry.cpp) plus NCCL's point-to-point send and recv, with what the
// format and the check need of each.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace collbench::replay {

enum class ReplayOp {
  all_reduce,
  all_gather,
  reduce_scatter,
  broadcast,
  reduce,
  alltoall,
  alltoallv,
  gather,
  scatter,
  send,
  recv
};

struct ReplayOpSpec {
  ReplayOp op;
  std::string_view name;  // the registry's name (send and recv: NCCL's)
  bool reduces;           // carries a reduction (redop)
  bool rooted;            // carries a root
  bool point_to_point;    // carries a peer; matched per pair of ranks, not per communicator
  bool per_peer_counts;   // alltoallv: send_counts and recv_counts instead of one count
};

const ReplayOpSpec& spec_of(ReplayOp op);
std::string_view name_of(ReplayOp op);
// Nothing when `name` is no replay op.
std::optional<ReplayOp> find_replay_op(std::string_view name);
// "all_reduce, all_gather, ..." for messages.
std::string replay_op_names();

// Elements in one rank's send and receive buffers, with NCCL's meaning of `count`: all_gather and
// gather send `count` and gather count x ranks; reduce_scatter and scatter receive `count`;
// alltoall exchanges `count` with every rank. Gather's and scatter's large buffer is the root's.
struct BufferElements {
  std::uint64_t send = 0;
  std::uint64_t recv = 0;
};
BufferElements buffer_elements(ReplayOp op, std::uint64_t count, int comm_size, bool is_root);

}  // namespace collbench::replay
