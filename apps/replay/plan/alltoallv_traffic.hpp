// alltoallv's per-peer counts as the registry launches and checks them (core/peer_traffic.hpp):
// one PeerTraffic per instance (communicator and sequence number), its matrix made of every
// member's send_counts. Each rank holds only its own row and column; the receiver's check needs
// where each segment starts in its sender's buffer, so the traffic is built from the whole
// workload.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <utility>

#include "core/peer_traffic.hpp"
#include "plan/workload_ops.hpp"

namespace collbench::replay {

using InstanceKey = std::pair<int, std::int64_t>;  // communicator, sequence number
using TrafficByInstance = std::map<InstanceKey, std::shared_ptr<const PeerTraffic>>;

TrafficByInstance alltoallv_traffic(const WorkloadOps& workload);

}  // namespace collbench::replay
