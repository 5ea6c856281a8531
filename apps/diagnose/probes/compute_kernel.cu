// Eight independent FMA chains per thread, long enough (about half a millisecond a launch on an
// H100) that launch overhead is a small share and short enough to fit many in a window.
#include "core/errors.hpp"
#include "probes/compute_kernel.hpp"

namespace collbench::diagnose {
namespace {

constexpr int kChains = 8;
constexpr int kIterations = 4096;
constexpr double kFlopsPerThread = 2.0 * kChains * kIterations;

__global__ void compute_kernel(float* sink) {
  const unsigned index = blockIdx.x * blockDim.x + threadIdx.x;
  float chain[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) chain[c] = 1.0f + 1e-3f * static_cast<float>(index + c);
  // x * a + b with |a| < 1 stays bounded: no overflow, no denormals to slow the pipes.
  const float a = 0.999f, b = 1e-3f;
  for (int i = 0; i < kIterations; ++i) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) chain[c] = fmaf(chain[c], a, b);
  }
  float total = 0;
#pragma unroll
  for (int c = 0; c < kChains; ++c) total += chain[c];
  sink[index] = total;
}

}  // namespace

double compute_flops_per_launch(int blocks) {
  return static_cast<double>(blocks) * kComputeThreads * kFlopsPerThread;
}

void launch_compute(float* sink, int blocks, cudaStream_t stream) {
  compute_kernel<<<blocks, kComputeThreads, 0, stream>>>(sink);
  CB_CHECK_LAUNCH();
}

int compute_blocks_per_sm() {
  int blocks = 0;
  CB_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, compute_kernel, kComputeThreads, 0));
  return blocks;
}

}  // namespace collbench::diagnose
