// Deadlock messages: the cycle's steps with group ends folded away, each op located.
#include "check/deadlock_message.hpp"

#include <fmt/format.h>

#include <map>
#include <tuple>

#include "workload/workload_reader.hpp"

namespace collbench::replay {
namespace {

// One rank's "X before Y" in the cycle.
struct Step {
  int rank;
  NodeId before;
  NodeId after;
};

constexpr std::size_t kStepsShown = 6;  // a longer cycle is summarized, keeping the line short

bool is_group_end(const DependencyGraph& graph, NodeId node) {
  return graph.label(node).kind == NodeLabel::Kind::group_end;
}

// Edges into a group_end and out of it are one rank's step past its group.
std::vector<Step> steps_of(std::vector<DependencyEdge> cycle, const DependencyGraph& graph) {
  while (is_group_end(graph, cycle.front().from)) {  // start on an op (a group_end never loops)
    cycle.push_back(cycle.front());
    cycle.erase(cycle.begin());
  }
  std::vector<Step> steps;
  for (const DependencyEdge& edge : cycle) {
    if (is_group_end(graph, edge.from)) {
      steps.back().after = edge.to;
    } else {
      steps.push_back({edge.rank, edge.from, edge.to});
    }
  }
  return steps;
}

// Which node an op line belongs to, in the terms of NodeLabel.
std::tuple<int, int, int, std::int64_t> node_identity(const WorkloadOp& op,
                                                      const CommunicatorTable& communicators) {
  if (!op.peer) return {op.comm, -1, -1, op.seq};
  const int self = communicators.local_rank(op.comm, op.rank);
  return op.op == ReplayOp::send ? std::tuple{op.comm, self, *op.peer, op.seq}
                                 : std::tuple{op.comm, *op.peer, self, op.seq};
}

std::tuple<int, int, int, std::int64_t> node_identity(const NodeLabel& label) {
  return {label.comm, label.sender, label.receiver, label.seq};
}

// The lines of the steps' ops: (rank, node) -> workload line.
std::map<std::pair<int, NodeId>, std::uint64_t> locate_steps(const std::vector<Step>& steps,
                                                             const DependencyGraph& graph,
                                                             const CommunicatorTable& communicators,
                                                             const std::string& path,
                                                             bool source_first) {
  std::map<std::pair<int, std::tuple<int, int, int, std::int64_t>>, NodeId> wanted;
  for (const Step& step : steps) {
    for (const NodeId node : {step.before, step.after}) {
      wanted[{step.rank, node_identity(graph.label(node))}] = node;
    }
  }
  std::map<std::pair<int, NodeId>, std::uint64_t> lines;
  WorkloadReader reader(path, {source_first});
  while (const WorkloadOp* op = reader.next()) {
    const auto found = wanted.find({op->rank, node_identity(*op, communicators)});
    if (found != wanted.end()) lines.emplace(std::pair{op->rank, found->second}, reader.line());
  }
  return lines;
}

std::string describe_node(const NodeLabel& label, int rank,
                          const CommunicatorTable& communicators) {
  if (label.kind == NodeLabel::Kind::collective) {
    return fmt::format("{} seq {} on {}", name_of(label.op), label.seq,
                       communicators.describe(label.comm));
  }
  const std::vector<int>& ranks = communicators.at(label.comm).ranks;
  const int sender = ranks[static_cast<std::size_t>(label.sender)];
  const int receiver = ranks[static_cast<std::size_t>(label.receiver)];
  return rank == sender ? fmt::format("send to rank {} (seq {} on communicator {})", receiver,
                                      label.seq, label.comm)
                        : fmt::format("recv from rank {} (seq {} on communicator {})", sender,
                                      label.seq, label.comm);
}

}  // namespace

std::string describe_deadlock(const std::vector<DependencyEdge>& cycle,
                              const DependencyGraph& graph, const CommunicatorTable& communicators,
                              const std::string& path, bool source_first) {
  const std::vector<Step> steps = steps_of(cycle, graph);
  const auto lines = locate_steps(steps, graph, communicators, path, source_first);
  const auto place = [&](int rank, NodeId node) {
    const auto found = lines.find({rank, node});
    return found == lines.end() ? std::string("?")
                                : locate_workload_line(path, found->second, source_first);
  };
  std::string text = place(steps.front().rank, steps.front().before) + ": deadlock: ";
  if (steps.size() == 1 && steps.front().before == steps.front().after) {
    const NodeLabel& label = graph.label(steps.front().before);
    return text + fmt::format(
                      "rank {} sends to itself (seq {} on communicator {}) outside a "
                      "group: the send waits for its own recv, issued after it",
                      steps.front().rank, label.seq, label.comm);
  }
  for (std::size_t i = 0; i < steps.size() && i < kStepsShown; ++i) {
    const Step& step = steps[i];
    text += fmt::format("{}rank {} issues {} ({}) before {} ({})", i == 0 ? "" : "; ", step.rank,
                        describe_node(graph.label(step.before), step.rank, communicators),
                        place(step.rank, step.before),
                        describe_node(graph.label(step.after), step.rank, communicators),
                        place(step.rank, step.after));
  }
  if (steps.size() > kStepsShown) text += fmt::format("; ... ({} steps in all)", steps.size());
  return text + " (a cycle: no rank can go on)";
}

}  // namespace collbench::replay
