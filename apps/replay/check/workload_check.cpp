// The check: matching, then the dependency graph's cycles.
#include "check/workload_check.hpp"

#include <algorithm>

#include "check/collective_instances.hpp"
#include "check/deadlock_message.hpp"
#include "check/point_to_point_pairs.hpp"
#include "check/rank_schedule.hpp"
#include "core/errors.hpp"

namespace collbench::replay {
namespace {

void count_op(const WorkloadOp& op, const WorkloadOp* previous, CheckSummary& summary) {
  ++summary.ops;
  const bool new_rank = previous == nullptr || previous->rank != op.rank;
  if (new_rank) ++summary.ranks_with_ops;
  if (op.group && (new_rank || previous->group != op.group)) ++summary.groups;
}

}  // namespace

CheckSummary check_workload(const std::string& path, ReaderOptions options) {
  WorkloadReader reader(path, options);
  const CommunicatorTable& communicators = reader.communicators();
  DependencyGraph graph;
  CollectiveInstances collectives(communicators);
  PointToPointPairs pairs(communicators);
  RankSchedule schedule(graph);
  CheckSummary summary;
  summary.world_size = reader.header().world_size;
  summary.communicators = communicators.count();
  WorkloadOp previous;
  bool has_previous = false;
  while (const WorkloadOp* op = reader.next()) {
    const NodeId node = op->peer ? pairs.observe(*op, reader.context(), graph)
                                 : collectives.observe(*op, reader.context(), graph);
    schedule.add(*op, node);
    count_op(*op, has_previous ? &previous : nullptr, summary);
    previous.rank = op->rank;
    previous.group = op->group;
    has_previous = true;
    summary.most_unmatched_held =
        std::max(summary.most_unmatched_held, collectives.pending() + pairs.pending());
  }
  schedule.finish_rank();
  collectives.require_complete(path, options.source_first);
  pairs.require_complete(path, options.source_first);
  if (const auto cycle = graph.find_cycle()) {
    throw UsageError(describe_deadlock(*cycle, graph, communicators, path, options.source_first));
  }
  for (NodeId node = 0; node < graph.node_count(); ++node) {
    const NodeLabel::Kind kind = graph.label(node).kind;
    if (kind == NodeLabel::Kind::collective) ++summary.collectives;
    if (kind == NodeLabel::Kind::pair) ++summary.point_to_point_pairs;
  }
  summary.most_ops_held = schedule.most_ops_held();
  return summary;
}

}  // namespace collbench::replay
