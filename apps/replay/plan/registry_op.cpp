// Workload ops through the registry.
#include "plan/registry_op.hpp"

#include <numeric>

namespace collbench::replay {

const CollectiveSpec& registry_entry(ReplayOp op) {
  if (spec_of(op).point_to_point) return find_collective("sendrecv");
  return find_collective(name_of(op));
}

ElementCounts op_element_counts(const WorkloadOp& op, int comm_size, int comm_rank) {
  if (spec_of(op.op).per_peer_counts) {
    const std::uint64_t sent =
        std::accumulate(op.send_counts.begin(), op.send_counts.end(), std::uint64_t{0});
    const std::uint64_t received =
        std::accumulate(op.recv_counts.begin(), op.recv_counts.end(), std::uint64_t{0});
    return {sent, received, 0};  // no count of its own, as nccl-tests reports a matrix's
  }
  const bool is_root = op.root && *op.root == comm_rank;
  const BufferElements buffers = buffer_elements(op.op, op.count, comm_size, is_root);
  return {buffers.send, buffers.recv, op.count};
}

double op_bus_bytes(const WorkloadOp& op, int comm_size, int comm_rank) {
  const CollectiveSpec& entry = registry_entry(op.op);
  const ElementCounts counts = op_element_counts(op, comm_size, comm_rank);
  return algbw_bytes(entry, counts, op.dtype, comm_size) * entry.bus_factor(comm_size);
}

}  // namespace collbench::replay
