// Matching sends with receives: per communicator, the k-th send from rank a to rank b meets the
// k-th recv at b from a (their seq), in issue order; both must move the same count of the same
// data type. A pair is held only until its second side is read.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "check/dependency_graph.hpp"
#include "workload/communicator_table.hpp"
#include "workload/line_context.hpp"
#include "workload/workload_records.hpp"

namespace collbench::replay {

class PointToPointPairs {
 public:
  explicit PointToPointPairs(const CommunicatorTable& communicators)
      : communicators_(communicators) {}

  // The node of `op`'s pair (made for its first side). Throws UsageError at `context` when the
  // two sides disagree.
  NodeId observe(const WorkloadOp& op, const LineContext& context, DependencyGraph& graph);

  std::size_t pending() const { return pending_.size(); }
  // Throws UsageError naming the earliest send without its receive (or recv without its send).
  void require_complete(const std::string& path, bool source_first) const;

 private:
  struct Key {
    int comm;
    int sender;  // communicator ranks
    int receiver;
    std::int64_t seq;
    bool operator==(const Key& other) const {
      return comm == other.comm && sender == other.sender && receiver == other.receiver &&
             seq == other.seq;
    }
  };
  struct KeyHash {
    std::size_t operator()(const Key& key) const;
  };
  struct Side {
    ReplayOp op;  // send or recv, whichever came first
    DataType dtype;
    std::uint64_t count;
    int rank;
    std::uint64_t line;
    NodeId node;
  };

  const CommunicatorTable& communicators_;
  std::unordered_map<Key, Side, KeyHash> pending_;
};

}  // namespace collbench::replay
