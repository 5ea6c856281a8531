// Collective matching by sequence number.
#include "check/collective_instances.hpp"

#include <fmt/format.h>

#include <set>

#include "check/hash_mix.hpp"
#include "workload/input_error.hpp"
#include "workload/workload_reader.hpp"

namespace collbench::replay {
namespace {

// Spreads (sender, receiver, count) so that unequal count matrices sum differently.
std::uint64_t pair_count_hash(int sender, int receiver, std::uint64_t count) {
  return hash_mix(
      hash_mix((static_cast<std::uint64_t>(sender) << 32) | static_cast<std::uint32_t>(receiver)) ^
      count);
}

std::string option_text(const std::optional<int>& value) {
  return value ? std::to_string(*value) : "none";
}

}  // namespace

std::string describe_collective(ReplayOp op, std::int64_t seq, int comm,
                                const CommunicatorTable& communicators) {
  return fmt::format("{} seq {} on {}", name_of(op), seq, communicators.describe(comm));
}

std::size_t CollectiveInstances::KeyHash::operator()(
    const std::pair<int, std::int64_t>& key) const {
  return static_cast<std::size_t>(hash_mix(static_cast<std::uint64_t>(key.second) ^
                                           (static_cast<std::uint64_t>(key.first) << 48)));
}

NodeId CollectiveInstances::observe(const WorkloadOp& op, const LineContext& context,
                                    DependencyGraph& graph) {
  const auto [found, first] = pending_.try_emplace({op.comm, op.seq});
  Instance& instance = found->second;
  if (first) {
    instance.first = {op.op, op.dtype, op.count, op.redop, op.root};
    instance.first_rank = op.rank;
    instance.first_line = context.line;
    instance.node = graph.add_node({NodeLabel::Kind::collective, op.op, op.comm, op.seq});
  } else {
    compare(instance, op, context);
  }
  add_alltoallv_counts(instance, op);
  const NodeId node = instance.node;
  if (++instance.members_seen == communicators_.size_of(op.comm)) {
    if (instance.sent_hash != instance.received_hash) {
      context.fail(
          fmt::format("{}: the ranks' send_counts and recv_counts disagree (what rank i "
                      "sends to j is not what j receives from i)",
                      describe_collective(op.op, op.seq, op.comm, communicators_)));
    }
    pending_.erase(found);
  }
  return node;
}

void CollectiveInstances::add_alltoallv_counts(Instance& instance, const WorkloadOp& op) const {
  if (op.op != ReplayOp::alltoallv || instance.first.op != ReplayOp::alltoallv) return;
  const int self = communicators_.local_rank(op.comm, op.rank);
  for (std::size_t peer = 0; peer < op.send_counts.size(); ++peer) {
    instance.sent_hash += pair_count_hash(self, static_cast<int>(peer), op.send_counts[peer]);
    instance.received_hash += pair_count_hash(static_cast<int>(peer), self, op.recv_counts[peer]);
  }
}

void CollectiveInstances::compare(const Instance& instance, const WorkloadOp& op,
                                  const LineContext& context) const {
  const Shape& first = instance.first;
  std::string difference;
  if (op.op != first.op) {
    difference = fmt::format("op {} here, {}", name_of(op.op), name_of(first.op));
  } else if (op.dtype != first.dtype) {
    difference = fmt::format("dtype {} here, {}", name_of(op.dtype), name_of(first.dtype));
  } else if (op.op != ReplayOp::alltoallv && op.count != first.count) {
    difference = fmt::format("count {} here, {}", op.count, first.count);
  } else if (op.redop != first.redop) {
    difference = fmt::format("redop {} here, {}", name_of(op.redop.value_or(ReduceOp::none)),
                             name_of(first.redop.value_or(ReduceOp::none)));
  } else if (op.root != first.root) {
    difference = fmt::format("root {} here, {}", option_text(op.root), option_text(first.root));
  }
  if (difference.empty()) return;
  const std::string first_place =
      locate_workload_line(std::string(context.path), instance.first_line, context.source_first);
  context.fail(fmt::format("{}: {} on rank {} ({})",
                           describe_collective(first.op, op.seq, op.comm, communicators_),
                           difference, instance.first_rank, first_place));
}

void CollectiveInstances::require_complete(const std::string& path, bool source_first) const {
  if (pending_.empty()) return;
  const auto* earliest = &*pending_.begin();
  for (const auto& entry : pending_) {
    if (entry.second.first_line < earliest->second.first_line) earliest = &entry;
  }
  const Shape& op = earliest->second.first;
  const auto [comm, seq] = earliest->first;
  // Who issued it: read again (only on this error path) rather than held for every collective.
  std::set<int> issued;
  WorkloadReader reader(path, {source_first});
  while (const WorkloadOp* other = reader.next()) {
    if (other->comm == comm && other->seq == seq && !other->peer) issued.insert(other->rank);
  }
  std::vector<int> missing;
  for (const int rank : communicators_.at(comm).ranks) {
    if (issued.count(rank) == 0) missing.push_back(rank);
  }
  throw_bad_input(locate_workload_line(path, earliest->second.first_line, source_first),
                  fmt::format("{}: rank{} {} never issue{} it (an op not every member issued)",
                              describe_collective(op.op, seq, comm, communicators_),
                              missing.size() == 1 ? "" : "s", fmt::join(missing, ","),
                              missing.size() == 1 ? "s" : ""));
}

}  // namespace collbench::replay
