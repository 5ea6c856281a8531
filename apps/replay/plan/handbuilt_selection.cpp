// The all_reduce ops a hand-built all-reduce takes over.
#include "plan/handbuilt_selection.hpp"

namespace collbench::replay {

HandbuiltSelection select_handbuilt_all_reduces(const WorkloadOps& workload) {
  std::set<OpKey> candidates, grouped, single_rank;
  for (const std::vector<WorkloadOp>& ops : workload.by_rank) {
    for (const WorkloadOp& op : ops) {
      if (op.op != ReplayOp::all_reduce) continue;
      const OpKey key{op.comm, op.seq};
      if (workload.comm_size(op) < 2) {
        single_rank.insert(key);
      } else if (op.group) {
        grouped.insert(key);
      } else {
        candidates.insert(key);
      }
    }
  }
  HandbuiltSelection selection;
  for (const OpKey& key : candidates) {
    if (grouped.count(key) == 0) selection.taken.insert(key);
  }
  selection.grouped = grouped.size();
  selection.single_rank = single_rank.size();
  return selection;
}

}  // namespace collbench::replay
