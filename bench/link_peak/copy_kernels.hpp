// Host API of the link-peak probe's kernel (copy_kernels.cu): the SM-driven peer copy.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace collbench::link_peak {

// Copies `bytes` from `src` (peer memory: the calling device must have peer access to it) to
// `dst` (local) with 16-byte loads and stores, `blocks` blocks of kCopyThreads on `stream`.
// Both pointers must be 16-byte aligned (cudaMalloc's are); a tail under 16 bytes is copied
// byte by byte.
inline constexpr int kCopyThreads = 512;
void launch_pull_copy(void* dst, const void* src, std::size_t bytes, int blocks,
                      cudaStream_t stream);
// Blocks per SM that keep the copy kernel fully resident on the current device.
int pull_copy_blocks_per_sm();

}  // namespace collbench::link_peak
