// Single sends and receives on communicators of their two ranks, as PyTorch runs them (see the
// header).
#include "import/torch_pair_communicators.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace collbench::replay {

void move_single_point_to_point_to_pairs(std::vector<ImportedOp>& ops, ImportSession& session) {
  for (ImportedOp& imported : ops) {
    WorkloadOp& op = imported.op;
    if (!op.peer || imported.group_key) continue;
    const Communicator& group = session.communicators().at(op.comm);
    const int self = session.communicators().local_rank(op.comm, op.rank);
    const int low = std::min(self, *op.peer);
    const int high = std::max(self, *op.peer);
    const std::string name = fmt::format(
        "{} pair {}:{}", group.names.empty() ? std::to_string(group.id) : group.names.front(), low,
        high);
    const std::vector<int> ranks{group.ranks.at(static_cast<std::size_t>(low)),
                                 group.ranks.at(static_cast<std::size_t>(high))};
    op.comm = session.communicator(name, ranks, {name}, op.where);
    op.peer = self == low ? 1 : 0;
    session.assume(
        "point-to-point: single sends and receives on a communicator of their two ranks, as "
        "PyTorch's ProcessGroupNCCL makes one per pair (without a bound device; the NCCL log "
        "shows them); batched ones on their process group's");
  }
}

}  // namespace collbench::replay
