// Numbers one rank's imported ops the workload's way, in that rank's issue order: collective
// sequence numbers per communicator where the source records none, per-peer sequence numbers of
// sends and receives, stream ids 0, 1, ... by the source's stream names, group ids by the runs of
// equal group keys, and times counted from the origin.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "import/imported_op.hpp"
#include "workload/communicator_table.hpp"

namespace collbench::replay {

class RankNumbering {
 public:
  RankNumbering(const CommunicatorTable& communicators, std::optional<std::int64_t> origin_ns)
      : communicators_(communicators), origin_ns_(origin_ns) {}

  // Completes imported.op and returns it; a new rank starts over.
  const WorkloadOp& number(ImportedOp& imported);

 private:
  void start_rank(int rank);
  std::optional<double> relative_us(const std::optional<std::int64_t>& instant_ns) const;

  const CommunicatorTable& communicators_;
  std::optional<std::int64_t> origin_ns_;
  int rank_ = -1;
  std::unordered_map<int, std::int64_t> next_collective_seq_;     // per communicator
  std::unordered_map<std::uint64_t, std::int64_t> next_p2p_seq_;  // per comm, peer, direction
  std::unordered_map<std::string, int> stream_ids_;
  std::optional<std::int64_t> last_group_key_;
  std::int64_t group_id_ = 0;
  std::int64_t next_group_id_ = 0;
};

}  // namespace collbench::replay
