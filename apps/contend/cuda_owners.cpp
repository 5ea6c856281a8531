// CUDA resource owners: acquire in the constructor (checked), release in the destructor
// (reported, never thrown).
#include "cuda_owners.hpp"

#include <fmt/format.h>

#include "contend_errors.hpp"
#include "cuda_check.hpp"

namespace collbench::contend {

int visible_gpu_count() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    throw NoGpuError(fmt::format("no CUDA GPU is visible (cudaGetDeviceCount: {})",
                                 status == cudaSuccess ? "0 GPUs" : cudaGetErrorString(status)));
  }
  return count;
}

void require_gpu(int gpu, const std::string& option, const std::string& value) {
  const int count = visible_gpu_count();
  if (gpu < 0 || gpu >= count)
    throw UsageError(fmt::format("{} {}: no GPU {} ({} visible)", option, value, gpu, count));
}

DeviceGuard::DeviceGuard(int gpu) {
  CONTEND_CUDA(cudaGetDevice(&previous_), gpu);
  CONTEND_CUDA(cudaSetDevice(gpu), gpu);
}

DeviceGuard::~DeviceGuard() {
  CONTEND_CUDA_NOTHROW(cudaSetDevice(previous_), previous_);
}

DeviceBuffer::DeviceBuffer(int gpu, std::size_t bytes) : gpu_(gpu) {
  DeviceGuard guard(gpu);
  CONTEND_CUDA(cudaMalloc(&pointer_, bytes), gpu);
}

DeviceBuffer::~DeviceBuffer() {
  // cudaFree waits for the work still using the buffer.
  CONTEND_CUDA_NOTHROW(cudaFree(pointer_), gpu_);
}

Stream::Stream(int gpu) : gpu_(gpu) {
  DeviceGuard guard(gpu);
  CONTEND_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), gpu);
}

Stream::~Stream() {
  CONTEND_CUDA_NOTHROW(cudaStreamDestroy(stream_), gpu_);
}

Event::Event(int gpu) : gpu_(gpu) {
  DeviceGuard guard(gpu);
  CONTEND_CUDA(cudaEventCreateWithFlags(&event_, cudaEventBlockingSync | cudaEventDisableTiming),
               gpu);
}

Event::~Event() {
  CONTEND_CUDA_NOTHROW(cudaEventDestroy(event_), gpu_);
}

PeerAccess::PeerAccess(int gpu, int peer) : gpu_(gpu), peer_(peer) {
  int can_access = 0;
  CONTEND_CUDA(cudaDeviceCanAccessPeer(&can_access, gpu, peer), gpu);
  if (!can_access)
    throw LoadError(
        fmt::format("GPU {} cannot access GPU {}'s memory (cudaDeviceCanAccessPeer): "
                    "no peer link to load",
                    gpu, peer));
  DeviceGuard guard(gpu);
  const cudaError_t status = cudaDeviceEnablePeerAccess(peer, 0);
  if (status == cudaErrorPeerAccessAlreadyEnabled) {
    (void)cudaGetLastError();  // it is also the last error now: clear it for later checks
    return;
  }
  CONTEND_CUDA(status, gpu);
  owned_ = true;
}

PeerAccess::~PeerAccess() {
  if (!owned_) return;
  int previous = 0;
  CONTEND_CUDA_NOTHROW(cudaGetDevice(&previous), gpu_);
  CONTEND_CUDA_NOTHROW(cudaSetDevice(gpu_), gpu_);
  CONTEND_CUDA_NOTHROW(cudaDeviceDisablePeerAccess(peer_), gpu_);
  CONTEND_CUDA_NOTHROW(cudaSetDevice(previous), previous);
}

}  // namespace collbench::contend
