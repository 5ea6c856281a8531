// The SM spin kernel of collbench_contend --sm-load GPU --sm-kind spin.
#include "cuda_check.hpp"
#include "spin_kernel.hpp"

namespace collbench::contend {
namespace {

constexpr int kSpinThreadsPerBlock = 256;

__device__ unsigned long long global_timer_ns() {
  unsigned long long now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

// Every thread spins, so every warp slot of the block stays taken for the whole time.
__global__ void spin_kernel(unsigned long long spin_ns) {
  const unsigned long long start = global_timer_ns();
  while (global_timer_ns() - start < spin_ns) {
  }
}

}  // namespace

SpinShape spin_shape(int gpu) {
  SpinShape shape;
  shape.threads_per_block = kSpinThreadsPerBlock;
  CONTEND_CUDA(cudaDeviceGetAttribute(&shape.sms, cudaDevAttrMultiProcessorCount, gpu), gpu);
  CONTEND_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&shape.blocks_per_sm, spin_kernel,
                                                             kSpinThreadsPerBlock, 0),
               gpu);
  return shape;
}

void launch_spin(const SpinShape& shape, cudaStream_t stream, unsigned long long spin_ns, int gpu) {
  spin_kernel<<<shape.blocks(), shape.threads_per_block, 0, stream>>>(spin_ns);
  CONTEND_CUDA(cudaGetLastError(), gpu);
}

}  // namespace collbench::contend
