// The GPU-side delay: one thread, one block, polling the global timer.
#include "gpu_delay.hpp"
#include "peer_flags.cuh"

namespace collbench::kernels {
namespace {

__global__ void delay_kernel(std::uint64_t delay_ns) {
  const std::uint64_t started_ns = global_timer_ns();
  // A short sleep between polls leaves the SM's issue slots to the kernels beside it.
  while (global_timer_ns() - started_ns < delay_ns) __nanosleep(200);
}

}  // namespace

cudaError_t launch_gpu_delay(std::uint64_t delay_ns, cudaStream_t stream) {
  delay_kernel<<<1, 1, 0, stream>>>(delay_ns);
  return cudaGetLastError();
}

cudaError_t preload_gpu_delay() {
  cudaFuncAttributes attributes{};
  return cudaFuncGetAttributes(&attributes, delay_kernel);
}

}  // namespace collbench::kernels
