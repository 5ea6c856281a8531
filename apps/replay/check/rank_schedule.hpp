// One rank's order as edges of the dependency graph: on each stream a step (an op, or a group of
// ops issued between one ncclGroupStart/End) starts after the step before it ends; a group waits
// for the previous step of every stream it touches and ends when all its ops end (a group_end
// node); a recorded wait ("after") makes an op wait for an earlier one. It holds one rank's ops
// at a time: the node of each, for the waits.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "check/dependency_graph.hpp"
#include "workload/workload_records.hpp"

namespace collbench::replay {

class RankSchedule {
 public:
  explicit RankSchedule(DependencyGraph& graph) : graph_(graph) {}

  // Adds the next op of its rank (in issue order), whose collective or pair is `node`.
  void add(const WorkloadOp& op, NodeId node);
  // Closes the current rank (its open group).
  void finish_rank();
  // The most ops of one rank held at once: one rank's window, not the workload.
  std::size_t most_ops_held() const { return most_ops_held_; }

 private:
  struct Member {
    NodeId node;
    int stream;
  };
  void start_rank(int rank);
  void close_group();
  void wait_for(NodeId waiter, const std::vector<std::int64_t>& ordinals);

  DependencyGraph& graph_;
  int rank_ = -1;
  std::unordered_map<int, NodeId> stream_tail_;  // each stream's last step (its node or group_end)
  std::vector<Member> group_;
  std::optional<std::int64_t> group_id_;
  std::vector<NodeId> node_of_ordinal_;
  std::size_t most_ops_held_ = 0;
};

}  // namespace collbench::replay
