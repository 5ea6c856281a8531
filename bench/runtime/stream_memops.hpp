// Stream memory operations: a stream writes a 32-bit flag once everything before it in the stream
// is done (and visible, system-wide), or waits until a flag reaches a value, both executed by the
// GPU's front end, so they take no SM. Driver API, reached through driver_entry_point.hpp, so
// binaries still start without a driver.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

namespace collbench {

// Enqueues on `stream` one write of `value` to each flag (any GPU's memory this device can
// address), each after a system-scope fence over the stream's earlier work. `rank` names errors.
void enqueue_flag_writes(cudaStream_t stream, const std::vector<std::uint32_t*>& flags,
                         std::uint32_t value, int rank);
// Enqueues on `stream` a wait until every flag (this GPU's memory) reaches `value`, compared
// cyclically: (int32_t)(flag - value) >= 0. Nothing after it in the stream starts before.
void enqueue_flag_waits(cudaStream_t stream, const std::vector<std::uint32_t*>& flags,
                        std::uint32_t value, int rank);

}  // namespace collbench
