// The compute probe's kernel (compute_kernel.cu): fused multiply-adds in registers on every SM,
// no memory traffic but one store per thread, so that only the SMs' time decides its speed.
#pragma once

#include <cuda_runtime.h>

namespace collbench::diagnose {

inline constexpr int kComputeThreads = 256;

// FP32 operations one launch performs: blocks x kComputeThreads x kComputeFlopsPerThread.
double compute_flops_per_launch(int blocks);

// Launches the FMA loop with `blocks` blocks on `stream`, writing one value per thread to `sink`
// (blocks * kComputeThreads floats), which keeps the compiler from removing the arithmetic.
void launch_compute(float* sink, int blocks, cudaStream_t stream);

// Blocks per SM that keep the kernel fully resident on the current device.
int compute_blocks_per_sm();

}  // namespace collbench::diagnose
