// The checks across the op lines of one rank, which no single line can show: ranks come one after
// another in increasing order, sequence numbers grow in issue order (per communicator; for
// send/recv per peer and direction), a group's ops are together, and waits name earlier ops.
// It holds one rank's state at a time, so a reader stays bounded however long the workload.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>

#include "workload/line_context.hpp"
#include "workload/workload_records.hpp"

namespace collbench::replay {

class RankOrder {
 public:
  // Admits `op` as the next line; returns its ordinal, its place in its rank's issue order.
  std::int64_t admit(const WorkloadOp& op, const LineContext& context);
  int rank() const { return rank_; }

 private:
  void start_rank(int rank);
  void admit_seq(const WorkloadOp& op, const LineContext& context);
  void admit_group(const WorkloadOp& op, const LineContext& context);

  int rank_ = -1;
  std::int64_t ordinal_ = 0;
  std::unordered_map<std::uint64_t, std::int64_t> last_seq_;  // key: see sequence_key()
  std::optional<std::int64_t> open_group_;
  std::int64_t last_group_ = -1;
};

}  // namespace collbench::replay
