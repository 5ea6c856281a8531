// alltoallv traffic from the members' send counts.
#include "plan/alltoallv_traffic.hpp"

#include <fmt/format.h>

#include "core/data_type.hpp"

namespace collbench::replay {

TrafficByInstance alltoallv_traffic(const WorkloadOps& workload) {
  // Per instance, the matrix in bytes and the element size, row by row as members come.
  std::map<InstanceKey, std::pair<TrafficMatrix, std::size_t>> matrices;
  for (const std::vector<WorkloadOp>& ops : workload.by_rank) {
    for (const WorkloadOp& op : ops) {
      if (op.op != ReplayOp::alltoallv) continue;
      const int size = workload.comm_size(op);
      auto& [matrix, element_bytes] = matrices[{op.comm, op.seq}];
      matrix.ranks = size;
      matrix.bytes.resize(static_cast<std::size_t>(size) * size);
      element_bytes = size_of(op.dtype);
      const auto row = static_cast<std::size_t>(workload.comm_rank(op)) * size;
      for (std::size_t peer = 0; peer < op.send_counts.size(); ++peer)
        matrix.bytes[row + peer] = op.send_counts[peer] * element_bytes;
    }
  }
  TrafficByInstance traffic;
  for (const auto& [key, entry] : matrices) {
    traffic[key] = std::make_shared<const PeerTraffic>(
        entry.first, entry.second, 0, fmt::format("comm {} seq {}", key.first, key.second));
  }
  return traffic;
}

}  // namespace collbench::replay
