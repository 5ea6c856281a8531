// An SM-driven copy that pulls from a peer GPU (or the same GPU) with 16-byte accesses: the link
// peak's SM copy and collbench_diagnose's local copy. The callers check the errors returned: this
// library names no rank.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace collbench::kernels {

// Copies `bytes` from `src` (peer memory: the calling device must have peer access to it) to
// `dst` (local) with 16-byte loads and stores, `blocks` blocks of kCopyThreads on `stream`.
// Both pointers must be 16-byte aligned (cudaMalloc's are); a tail under 16 bytes is copied
// byte by byte.
inline constexpr int kCopyThreads = 512;
cudaError_t launch_pull_copy(void* dst, const void* src, std::size_t bytes, int blocks,
                             cudaStream_t stream);
// Blocks per SM that keep the copy kernel fully resident on the current device (at least 1).
cudaError_t pull_copy_blocks_per_sm(int* blocks);

}  // namespace collbench::kernels
