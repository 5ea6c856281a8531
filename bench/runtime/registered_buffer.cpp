// Growing, registering and releasing a rank's case buffer.
#include "runtime/registered_buffer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "core/errors.hpp"

namespace collbench {

bool RegisteredBuffer::registered() const {
  switch (mode_) {
    case BufferRegistration::none:
      return true;
    case BufferRegistration::local:
      return static_cast<bool>(local_);
    case BufferRegistration::symmetric:
      return static_cast<bool>(window_);
  }
  return false;
}

void RegisteredBuffer::ensure_capacity(BufferRegistration mode, int device, std::size_t bytes) {
  if (*this && mode == mode_ && this->bytes() >= bytes) return;
  reset();
  mode_ = mode;
  if (uses_nccl_memory(mode)) {
    nccl_memory_ = NcclMemory(device, bytes);
  } else {
    plain_ = DeviceBuffer(device, bytes);
  }
}

void RegisteredBuffer::reset() {
  window_.reset();
  local_.reset();
  nccl_memory_.reset();
  plain_.reset();
}

void RegisteredBuffer::forget_registration() noexcept {
  window_.forget();
  local_.forget();
}

void RegisteredBuffer::register_local(ncclComm_t comm, int rank) {
  // An empty case still has an allocation of at least one byte; register at least that.
  const std::size_t bytes = std::max<std::size_t>(this->bytes(), 1);
  local_ = NcclRegistration(comm, get(), bytes, device(), rank);
  if (!local_) {
    throw GpuError(
        fmt::format("ncclCommRegister({} bytes) registered nothing (NCCL_LOCAL_REGISTER=0?) "
                    "[rank {}, GPU {}]",
                    bytes, rank, device()),
        false);
  }
}

WindowRequest RegisteredBuffer::window_request(ncclComm_t comm, int rank) const {
  // The whole allocation: its size is the same on every rank (every rank's buffers of a case are
  // alike, rounded up to the same granularity), as a symmetric window's must be.
  return {comm, nccl_memory_.get(), nccl_memory_.bytes(), nccl_memory_.device(), rank};
}

void RegisteredBuffer::adopt_window(NcclWindow window) {
  window_ = std::move(window);
}

void register_buffers(const std::vector<BufferOfRank>& buffers) {
  std::vector<WindowRequest> requests;
  std::vector<RegisteredBuffer*> windowed;
  for (const BufferOfRank& entry : buffers) {
    RegisteredBuffer& buffer = *entry.buffer;
    if (!buffer || buffer.registered()) continue;
    if (buffer.mode() == BufferRegistration::local) {
      buffer.register_local(entry.comm, entry.rank);
    } else if (buffer.mode() == BufferRegistration::symmetric) {
      requests.push_back(buffer.window_request(entry.comm, entry.rank));
      windowed.push_back(&buffer);
    }
  }
  std::vector<NcclWindow> windows = register_symmetric_windows(requests);
  for (std::size_t i = 0; i < windowed.size(); ++i)
    windowed[i]->adopt_window(std::move(windows[i]));
}

}  // namespace collbench
