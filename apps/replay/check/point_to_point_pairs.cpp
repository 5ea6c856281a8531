// Send/recv matching per pair of ranks and sequence number.
#include "check/point_to_point_pairs.hpp"

#include <fmt/format.h>

#include "check/hash_mix.hpp"
#include "workload/input_error.hpp"
#include "workload/workload_reader.hpp"

namespace collbench::replay {
std::size_t PointToPointPairs::KeyHash::operator()(const Key& key) const {
  const std::uint64_t ends =
      (static_cast<std::uint64_t>(static_cast<std::uint32_t>(key.sender)) << 32) |
      static_cast<std::uint32_t>(key.receiver);
  return static_cast<std::size_t>(hash_mix(hash_mix(ends) ^ static_cast<std::uint64_t>(key.seq) ^
                                           (static_cast<std::uint64_t>(key.comm) << 48)));
}

NodeId PointToPointPairs::observe(const WorkloadOp& op, const LineContext& context,
                                  DependencyGraph& graph) {
  const int self = communicators_.local_rank(op.comm, op.rank);
  const bool sends = op.op == ReplayOp::send;
  const Key key{op.comm, sends ? self : *op.peer, sends ? *op.peer : self, op.seq};
  const auto found = pending_.find(key);
  if (found == pending_.end()) {
    const NodeId node = graph.add_node(
        {NodeLabel::Kind::pair, ReplayOp::send, op.comm, op.seq, key.sender, key.receiver});
    pending_.emplace(key, Side{op.op, op.dtype, op.count, op.rank, context.line, node});
    return node;
  }
  const Side& other = found->second;
  if (other.op == op.op) {
    context.fail(fmt::format("{} {} seq {} on {} appears twice (also on rank {})", name_of(op.op),
                             sends ? "to" : "from", op.seq, communicators_.describe(op.comm),
                             other.rank));
  }
  if (other.dtype != op.dtype || other.count != op.count) {
    context.fail(fmt::format(
        "{} of {} {} here, its {} on rank {} ({}) {} {} {}", name_of(op.op), op.count,
        name_of(op.dtype), name_of(other.op), other.rank,
        locate_workload_line(std::string(context.path), other.line, context.source_first),
        other.op == ReplayOp::send ? "sends" : "receives", other.count, name_of(other.dtype)));
  }
  const NodeId node = other.node;
  pending_.erase(found);
  return node;
}

void PointToPointPairs::require_complete(const std::string& path, bool source_first) const {
  if (pending_.empty()) return;
  const auto* earliest = &*pending_.begin();
  for (const auto& entry : pending_) {
    if (entry.second.line < earliest->second.line) earliest = &entry;
  }
  const Key& key = earliest->first;
  const Side& side = earliest->second;
  const std::vector<int>& ranks = communicators_.at(key.comm).ranks;
  const bool sends = side.op == ReplayOp::send;
  const int other_rank = ranks[static_cast<std::size_t>(sends ? key.receiver : key.sender)];
  throw_bad_input(
      locate_workload_line(path, side.line, source_first),
      fmt::format("{} of {} {} {} rank {} (seq {} on {}) has no matching {} on rank {}",
                  name_of(side.op), side.count, name_of(side.dtype), sends ? "to" : "from",
                  other_rank, key.seq, communicators_.describe(key.comm), sends ? "recv" : "send",
                  other_rank));
}

}  // namespace collbench::replay
