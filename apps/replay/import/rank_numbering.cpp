// Per-rank numbering of imported ops.
#include "import/rank_numbering.hpp"

namespace collbench::replay {

void RankNumbering::start_rank(int rank) {
  rank_ = rank;
  next_collective_seq_.clear();
  next_p2p_seq_.clear();
  stream_ids_.clear();
  last_group_key_.reset();
  group_id_ = 0;
  next_group_id_ = 0;
}

std::optional<double> RankNumbering::relative_us(
    const std::optional<std::int64_t>& instant_ns) const {
  if (!instant_ns || !origin_ns_) return std::nullopt;
  return static_cast<double>(*instant_ns - *origin_ns_) / 1000.0;
}

const WorkloadOp& RankNumbering::number(ImportedOp& imported) {
  WorkloadOp& op = imported.op;
  if (op.rank != rank_) start_rank(op.rank);
  if (op.peer) {
    const int self = communicators_.local_rank(op.comm, op.rank);
    const bool sends = op.op == ReplayOp::send;
    // The k-th op from sender to receiver on one communicator: both sides count the same way
    // (each its own count, even on one rank sending to itself).
    const std::uint64_t key = (static_cast<std::uint64_t>(op.comm) << 43) |
                              (static_cast<std::uint64_t>(sends ? self : *op.peer) << 22) |
                              (static_cast<std::uint64_t>(sends ? *op.peer : self) << 1) |
                              (sends ? 1 : 0);
    op.seq = next_p2p_seq_[key]++;
  } else if (!imported.has_seq) {
    op.seq = next_collective_seq_[op.comm]++;
  }
  const auto [stream, added] =
      stream_ids_.try_emplace(imported.stream_key, static_cast<int>(stream_ids_.size()));
  op.stream = stream->second;
  if (!imported.group_key) {
    op.group.reset();
  } else {
    if (imported.group_key != last_group_key_) group_id_ = next_group_id_++;  // a new run
    op.group = group_id_;
  }
  last_group_key_ = imported.group_key;
  op.times = {relative_us(imported.times.issue_ns), relative_us(imported.times.start_ns),
              relative_us(imported.times.end_ns), imported.times.duration_us};
  return op;
}

}  // namespace collbench::replay
