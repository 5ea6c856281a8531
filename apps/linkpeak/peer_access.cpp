// Enabling and disabling peer access, tolerant of access someone else enabled first.
#include "peer_access.hpp"

#include <cuda_runtime.h>

#include <utility>

#include "core/errors.hpp"
#include "runtime/cuda_resources.hpp"

namespace collbench::link_peak {

PeerAccess::PeerAccess(int device, int peer) : device_(device), peer_(peer) {
  ScopedDevice on(device);
  const cudaError_t status = cudaDeviceEnablePeerAccess(peer, 0);
  if (status == cudaErrorPeerAccessAlreadyEnabled) {
    cudaGetLastError();  // not an error for us, but CUDA records it as the last error: clear it
    return;
  }
  CB_CUDA_CHECK(status);
  owned_ = true;
}

PeerAccess::~PeerAccess() {
  reset();
}

PeerAccess::PeerAccess(PeerAccess&& other) noexcept
    : device_(other.device_), peer_(other.peer_), owned_(std::exchange(other.owned_, false)) {}

PeerAccess& PeerAccess::operator=(PeerAccess&& other) noexcept {
  if (this != &other) {
    reset();
    device_ = other.device_;
    peer_ = other.peer_;
    owned_ = std::exchange(other.owned_, false);
  }
  return *this;
}

void PeerAccess::reset() noexcept {
  if (!owned_) return;
  owned_ = false;
  // Not ScopedDevice: its constructor may throw, and this runs in destructors.
  int previous = 0;
  CB_CUDA_CHECK_NOTHROW(cudaGetDevice(&previous));
  CB_CUDA_CHECK_NOTHROW(cudaSetDevice(device_));
  CB_CUDA_CHECK_NOTHROW(cudaDeviceDisablePeerAccess(peer_));
  CB_CUDA_CHECK_NOTHROW(cudaSetDevice(previous));
}

}  // namespace collbench::link_peak
