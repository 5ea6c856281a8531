// The SM-holding kernel of the slow-GPU fault.
#include "sm_hog_kernel.hpp"

namespace collbench::kernels {
namespace {

__global__ void hold_sm(const volatile int* stop) {
  extern __shared__ int reserved[];  // sized to fill the SM: its only purpose is occupancy
  if (threadIdx.x == 0) {
    reserved[0] = 0;
    while (*stop == 0) __nanosleep(1000);
  }
  __syncthreads();
}

}  // namespace

cudaError_t launch_sm_hog(int blocks, const volatile int* stop, cudaStream_t stream) {
  int device = 0;
  cudaError_t status = cudaGetDevice(&device);
  int max_shared = 0;
  if (status == cudaSuccess) {
    status = cudaDeviceGetAttribute(&max_shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  }
  if (status == cudaSuccess) {
    status = cudaFuncSetAttribute(hold_sm, cudaFuncAttributeMaxDynamicSharedMemorySize, max_shared);
  }
  if (status != cudaSuccess) return status;
  hold_sm<<<blocks, 32, max_shared, stream>>>(stop);
  return cudaGetLastError();
}

}  // namespace collbench::kernels
