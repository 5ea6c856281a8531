// Per-rank edges of the dependency graph.
#include "check/rank_schedule.hpp"

#include <algorithm>

namespace collbench::replay {

void RankSchedule::add(const WorkloadOp& op, NodeId node) {
  if (op.rank != rank_) start_rank(op.rank);
  node_of_ordinal_.push_back(node);
  most_ops_held_ = std::max(most_ops_held_, node_of_ordinal_.size());
  wait_for(node, op.after);
  if (group_id_ && op.group == group_id_) {
    group_.push_back({node, op.stream});
    return;
  }
  close_group();
  if (op.group) {
    group_id_ = op.group;
    group_.push_back({node, op.stream});
    return;
  }
  if (const auto tail = stream_tail_.find(op.stream); tail != stream_tail_.end()) {
    graph_.add_edge(tail->second, node, rank_);
  }
  stream_tail_[op.stream] = node;
}

void RankSchedule::finish_rank() {
  close_group();
  stream_tail_.clear();
  node_of_ordinal_.clear();
}

void RankSchedule::start_rank(int rank) {
  finish_rank();
  rank_ = rank;
}

void RankSchedule::wait_for(NodeId waiter, const std::vector<std::int64_t>& ordinals) {
  for (const std::int64_t ordinal : ordinals) {
    graph_.add_edge(node_of_ordinal_[static_cast<std::size_t>(ordinal)], waiter, rank_);
  }
}

void RankSchedule::close_group() {
  if (group_.empty()) return;
  std::vector<int> streams;
  for (const Member& member : group_) streams.push_back(member.stream);
  std::sort(streams.begin(), streams.end());
  streams.erase(std::unique(streams.begin(), streams.end()), streams.end());
  // NCCL starts a group once every stream it touches is ready ...
  for (const int stream : streams) {
    const auto tail = stream_tail_.find(stream);
    if (tail == stream_tail_.end()) continue;
    for (const Member& member : group_) graph_.add_edge(tail->second, member.node, rank_);
  }
  // ... and those streams go on once all its ops are done.
  NodeId end = group_.front().node;
  if (group_.size() > 1) {
    NodeLabel label;
    label.kind = NodeLabel::Kind::group_end;
    label.rank = rank_;
    end = graph_.add_node(label);
    for (const Member& member : group_) graph_.add_edge(member.node, end, rank_);
  }
  for (const int stream : streams) stream_tail_[stream] = end;
  group_.clear();
  group_id_.reset();
}

}  // namespace collbench::replay
