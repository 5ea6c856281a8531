// The pull copy's kernels: a pull copy over peer pointers (16-byte accesses, several loads
// in flight per thread to cover NVLink latency).
#include <cstdint>

#include "pull_copy.hpp"

namespace collbench::kernels {
namespace {

// Loads in flight per thread before the stores: a remote read takes ~1-2 us, so one load per
// thread at a time cannot fill the link.
constexpr int kUnroll = 4;

__global__ void __launch_bounds__(kCopyThreads)
    pull_copy_kernel(const uint4* __restrict__ src, uint4* __restrict__ dst, std::size_t vectors,
                     const unsigned char* __restrict__ src_tail,
                     unsigned char* __restrict__ dst_tail, int tail_bytes) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + (kUnroll - 1) * stride < vectors; i += kUnroll * stride) {
    uint4 values[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) values[u] = src[i + u * stride];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) dst[i + u * stride] = values[u];
  }
  for (; i < vectors; i += stride) dst[i] = src[i];
  if (blockIdx.x == 0 && static_cast<int>(threadIdx.x) < tail_bytes) {
    dst_tail[threadIdx.x] = src_tail[threadIdx.x];
  }
}

}  // namespace

cudaError_t launch_pull_copy(void* dst, const void* src, std::size_t bytes, int blocks,
                             cudaStream_t stream) {
  const std::size_t vectors = bytes / sizeof(uint4);
  const std::size_t body_bytes = vectors * sizeof(uint4);
  pull_copy_kernel<<<blocks, kCopyThreads, 0, stream>>>(
      static_cast<const uint4*>(src), static_cast<uint4*>(dst), vectors,
      static_cast<const unsigned char*>(src) + body_bytes,
      static_cast<unsigned char*>(dst) + body_bytes, static_cast<int>(bytes - body_bytes));
  return cudaGetLastError();
}

cudaError_t pull_copy_blocks_per_sm(int* blocks) {
  const cudaError_t status =
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, pull_copy_kernel, kCopyThreads, 0);
  if (status == cudaSuccess && *blocks < 1) *blocks = 1;
  return status;
}

}  // namespace collbench::kernels
