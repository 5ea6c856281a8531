// Per-rank order checks.
#include "workload/rank_order.hpp"

#include <fmt/format.h>

namespace collbench::replay {
namespace {

// A collective's sequence runs per communicator; a send's or recv's per communicator, peer and
// direction. Communicators and peers fit in 31 bits each (kMaxWorldSize, int ids).
std::uint64_t sequence_key(const WorkloadOp& op) {
  if (!op.peer) return static_cast<std::uint64_t>(op.comm) << 33;
  const std::uint64_t direction = op.op == ReplayOp::send ? 1 : 2;
  return (static_cast<std::uint64_t>(op.comm) << 33) | (static_cast<std::uint64_t>(*op.peer) << 2) |
         direction;
}

}  // namespace

std::int64_t RankOrder::admit(const WorkloadOp& op, const LineContext& context) {
  if (op.rank < rank_) {
    context.fail(
        fmt::format("rank {} after rank {}: each rank's ops come together, ranks in "
                    "increasing order",
                    op.rank, rank_));
  }
  if (op.rank != rank_) start_rank(op.rank);
  admit_seq(op, context);
  admit_group(op, context);
  for (const std::int64_t waited : op.after) {
    if (waited >= ordinal_) {
      context.fail(
          fmt::format("'after' names op {} of rank {}, which is not before this one "
                      "(op {})",
                      waited, op.rank, ordinal_));
    }
  }
  return ordinal_++;
}

void RankOrder::start_rank(int rank) {
  rank_ = rank;
  ordinal_ = 0;
  last_seq_.clear();
  open_group_.reset();
  last_group_ = -1;
}

void RankOrder::admit_seq(const WorkloadOp& op, const LineContext& context) {
  const auto [previous, first] = last_seq_.try_emplace(sequence_key(op), op.seq);
  if (first) return;
  if (op.seq <= previous->second) {
    const std::string what = op.peer ? fmt::format("{} with peer {} on communicator {}",
                                                   name_of(op.op), *op.peer, op.comm)
                                     : fmt::format("communicator {}", op.comm);
    context.fail(
        fmt::format("seq {} after seq {} on rank {} ({}): sequence numbers grow in "
                    "issue order",
                    op.seq, previous->second, op.rank, what));
  }
  previous->second = op.seq;
}

void RankOrder::admit_group(const WorkloadOp& op, const LineContext& context) {
  if (!op.group) {
    open_group_.reset();
    return;
  }
  if (open_group_ == op.group) return;
  if (*op.group <= last_group_) {
    context.fail(
        fmt::format("group {} after group {} on rank {}: a group's ops come together, "
                    "group ids grow",
                    *op.group, last_group_, op.rank));
  }
  open_group_ = op.group;
  last_group_ = *op.group;
}

}  // namespace collbench::replay
