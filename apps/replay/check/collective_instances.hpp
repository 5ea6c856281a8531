// Matching collectives across ranks by sequence number (never by time): the ops with one
// (communicator, seq) are one collective, which every member must issue with the same op, data
// type, count, reduction and root (alltoallv: counts that agree pairwise). An instance is held
// only until its last member's op is read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "check/dependency_graph.hpp"
#include "workload/communicator_table.hpp"
#include "workload/line_context.hpp"
#include "workload/workload_records.hpp"

namespace collbench::replay {

// Names a workload line for a message (a line read earlier than the one failing).
using LineLocator = std::string (*)(const std::string& path, std::uint64_t line, bool source_first);

class CollectiveInstances {
 public:
  explicit CollectiveInstances(const CommunicatorTable& communicators)
      : communicators_(communicators) {}

  // The node of `op`'s collective (made for its first member). Throws UsageError at `context`
  // when `op` disagrees with the members read before.
  NodeId observe(const WorkloadOp& op, const LineContext& context, DependencyGraph& graph);

  std::size_t pending() const { return pending_.size(); }
  // Throws UsageError naming the earliest collective some member never issued.
  void require_complete(const std::string& path, bool source_first) const;

 private:
  // What every member must agree on, as the first member issued it.
  struct Shape {
    ReplayOp op = ReplayOp::all_reduce;
    DataType dtype = DataType::float32;
    std::uint64_t count = 0;
    std::optional<ReduceOp> redop;
    std::optional<int> root;
  };
  struct Instance {
    Shape first;
    int first_rank = 0;
    std::uint64_t first_line = 0;
    int members_seen = 0;
    NodeId node = 0;
    std::uint64_t sent_hash = 0;      // alltoallv: sums over (sender, receiver, count) as each
    std::uint64_t received_hash = 0;  // side states it; equal when both sides agree
  };
  struct KeyHash {
    std::size_t operator()(const std::pair<int, std::int64_t>& key) const;
  };
  void compare(const Instance& instance, const WorkloadOp& op, const LineContext& context) const;
  void add_alltoallv_counts(Instance& instance, const WorkloadOp& op) const;

  const CommunicatorTable& communicators_;
  std::unordered_map<std::pair<int, std::int64_t>, Instance, KeyHash> pending_;  // (comm, seq)
};

// "all_reduce seq 3 on communicator 1 (ranks 0,1)".
std::string describe_collective(ReplayOp op, std::int64_t seq, int comm,
                                const CommunicatorTable& communicators);

}  // namespace collbench::replay
