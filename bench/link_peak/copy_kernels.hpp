// Host API of the link-peak probe's kernels (copy_kernels.cu): the SM-driven peer copy and the
// start gate that holds every stream of a measurement until all of its work is enqueued.
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

// The gate: a one-thread kernel that spins until the host writes a non-zero `release` word (in
// mapped pinned memory), or gives up after `timeout_ns` and sets `timed_out`. Both words are in
// host memory that every GPU can read (cudaHostAllocMapped | cudaHostAllocPortable).
void launch_wait_for_release(int* release, int* timed_out, unsigned long long timeout_ns,
                             cudaStream_t stream);

}  // namespace collbench::link_peak
