// Cycle finding: Kahn's algorithm over a compressed adjacency, then a walk back along the edges
// among the nodes it could not remove (each has a predecessor among them) until a node repeats.
#include "check/dependency_graph.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace collbench::replay {

NodeId DependencyGraph::add_node(const NodeLabel& label) {
  if (labels_.size() >= std::numeric_limits<NodeId>::max()) {
    throw std::length_error("dependency graph over 4 billion nodes");
  }
  labels_.push_back(label);
  return static_cast<NodeId>(labels_.size() - 1);
}

std::vector<NodeId> DependencyGraph::nodes_left_by_kahn() const {
  const std::size_t n = labels_.size();
  std::vector<std::uint32_t> first_edge(n + 1, 0);  // CSR offsets by `from`
  std::vector<std::uint32_t> waiting_on(n, 0);      // in-degree left
  for (const DependencyEdge& edge : edges_) {
    ++first_edge[edge.from + 1];
    ++waiting_on[edge.to];
  }
  for (std::size_t i = 0; i < n; ++i) first_edge[i + 1] += first_edge[i];
  std::vector<NodeId> targets(edges_.size());
  std::vector<std::uint32_t> fill(first_edge.begin(), first_edge.end() - 1);
  for (const DependencyEdge& edge : edges_) targets[fill[edge.from]++] = edge.to;
  std::vector<NodeId> ready;
  for (NodeId node = 0; node < n; ++node) {
    if (waiting_on[node] == 0) ready.push_back(node);
  }
  while (!ready.empty()) {
    const NodeId node = ready.back();
    ready.pop_back();
    for (std::uint32_t e = first_edge[node]; e < first_edge[node + 1]; ++e) {
      if (--waiting_on[targets[e]] == 0) ready.push_back(targets[e]);
    }
  }
  std::vector<NodeId> left;
  for (NodeId node = 0; node < n; ++node) {
    if (waiting_on[node] > 0) left.push_back(node);
  }
  return left;
}

std::optional<std::vector<DependencyEdge>> DependencyGraph::find_cycle() const {
  const std::vector<NodeId> left = nodes_left_by_kahn();
  if (left.empty()) return std::nullopt;
  constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  std::vector<bool> is_left(labels_.size(), false);
  for (const NodeId node : left) is_left[node] = true;
  // Each node left has a predecessor left (Kahn would have freed it otherwise): remember one.
  std::vector<std::size_t> edge_into(labels_.size(), kNone);
  for (std::size_t e = 0; e < edges_.size(); ++e) {
    const DependencyEdge& edge = edges_[e];
    if (is_left[edge.from] && is_left[edge.to] && edge_into[edge.to] == kNone)
      edge_into[edge.to] = e;
  }
  std::vector<std::size_t> visited_at(labels_.size(), kNone);
  std::vector<std::size_t> walk;  // edges, walking backwards
  NodeId node = left.front();
  while (visited_at[node] == kNone) {
    visited_at[node] = walk.size();
    walk.push_back(edge_into[node]);
    node = edges_[walk.back()].from;
  }
  // The cycle is the walk from where `node` was first visited, reversed into forward order.
  std::vector<DependencyEdge> cycle;
  for (std::size_t i = walk.size(); i-- > visited_at[node];) cycle.push_back(edges_[walk[i]]);
  return cycle;
}

}  // namespace collbench::replay
