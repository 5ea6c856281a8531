// A workload op as the collective registry (bench/core/collective_registry.hpp) describes it: its
// entry (send and recv: sendrecv's, one peer each way), its element counts in the registry's
// meaning (param: NCCL's count), and the bytes busbw divides by the time (nccl-tests'
// definitions), so that the replay launches, checks and reports every op through that one table.
#pragma once

#include <cstdint>

#include "core/collective_registry.hpp"
#include "workload/workload_records.hpp"

namespace collbench::replay {

const CollectiveSpec& registry_entry(ReplayOp op);

// Elements of the op's send and receive buffers on its rank (`comm_rank` of `comm_size`; the root's
// are the large ones of gather and scatter) and NCCL's count; alltoallv: its per-peer counts
// summed.
ElementCounts op_element_counts(const WorkloadOp& op, int comm_size, int comm_rank);

// algbw bytes x the bus factor of the op's entry for `comm_size` ranks: busbw = this / time.
double op_bus_bytes(const WorkloadOp& op, int comm_size, int comm_rank);

}  // namespace collbench::replay
