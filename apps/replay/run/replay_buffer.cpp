// A stream buffer's memory and registrations.
#include "run/replay_buffer.hpp"

#include <stdexcept>

namespace collbench::replay {

ReplayBuffer::ReplayBuffer(BufferRegistration mode, int device, std::size_t bytes)
    : mode_(mode), device_(device) {
  if (mode == BufferRegistration::symmetric)
    throw std::logic_error("symmetric windows are not built for replays");  // refused when parsed
  if (uses_nccl_memory(mode)) {
    nccl_memory_ = NcclMemory(device, bytes);
  } else {
    plain_ = DeviceBuffer(device, bytes);
  }
}

void ReplayBuffer::register_with(ncclComm_t comm, int rank) {
  if (mode_ != BufferRegistration::local) return;
  NcclRegistration registration(comm, nccl_memory_.get(), nccl_memory_.bytes(), device_, rank);
  // A null one: NCCL_LOCAL_REGISTER=0 registers nothing (NcclRegistration says so).
  if (registration) registrations_.push_back(std::move(registration));
}

void ReplayBuffer::abandon() noexcept {
  for (NcclRegistration& registration : registrations_) registration.forget();
  plain_.abandon();
  nccl_memory_.abandon();
}

}  // namespace collbench::replay
