// The dependency graph of a workload: one node per collective (all its members' ops together),
// per matched send/recv pair, and per multi-op group's end on a rank; an edge where a rank must
// finish one node before it can start the next (issue order on a stream, a group, a recorded
// wait). A cycle is a deadlock: no rank can make the first move.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "workload/replay_op.hpp"

namespace collbench::replay {

using NodeId = std::uint32_t;

// What a node stands for, to name it in a message.
struct NodeLabel {
  enum class Kind : std::uint8_t { collective, pair, group_end };
  Kind kind = Kind::collective;
  ReplayOp op = ReplayOp::all_reduce;  // collective: its op; pair: send
  int comm = 0;
  std::int64_t seq = 0;
  int sender = -1;  // pair: communicator ranks of both ends
  int receiver = -1;
  int rank = -1;  // group_end: the rank whose group it closes
};

struct DependencyEdge {
  NodeId from = 0;
  NodeId to = 0;
  int rank = 0;  // the rank whose order makes `to` wait for `from`
};

class DependencyGraph {
 public:
  NodeId add_node(const NodeLabel& label);
  void add_edge(NodeId from, NodeId to, int rank) { edges_.push_back({from, to, rank}); }

  std::size_t node_count() const { return labels_.size(); }
  std::size_t edge_count() const { return edges_.size(); }
  const NodeLabel& label(NodeId node) const { return labels_[node]; }

  // The edges of one cycle in order (each edge's `to` is the next one's `from`), or nothing when
  // the graph is acyclic: Kahn's algorithm removes what can run; any node left waits on a cycle.
  std::optional<std::vector<DependencyEdge>> find_cycle() const;

 private:
  std::vector<NodeId> nodes_left_by_kahn() const;

  std::vector<NodeLabel> labels_;
  std::vector<DependencyEdge> edges_;
};

}  // namespace collbench::replay
