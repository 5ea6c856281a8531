// Mean-squared-error loss: writes dLoss/dOutput and per-block sums of squared errors, reduced in
// a fixed order inside each block so repeated runs give the same partial sums.
#include "element_access.cuh"
#include "mse_loss.hpp"

namespace collbench::kernels::training {
namespace {

constexpr unsigned kThreads = 256;
constexpr int kPack = 4;

template <typename T>
__device__ float squared_error_step(const T* output, const T* target, T* gradient, std::uint64_t i,
                                    float scale) {
  const float difference = to_float(output[i]) - to_float(target[i]);
  gradient[i] = from_float<T>(scale * difference);
  return difference * difference;
}

template <typename T>
__global__ void mse_loss_kernel(const T* output, const T* target, T* gradient, std::uint64_t count,
                                float scale, bool vectorised, float* partial_sums) {
  const std::uint64_t thread = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  float sum = 0.0f;
  std::uint64_t scalar_begin = 0;
  if (vectorised) {
    using Vec = Pack<T, kPack>;
    const std::uint64_t packs = count / kPack;
    for (std::uint64_t p = thread; p < packs; p += stride) {
      const Vec y = reinterpret_cast<const Vec*>(output)[p];
      const Vec t = reinterpret_cast<const Vec*>(target)[p];
      Vec g;
#pragma unroll
      for (int j = 0; j < kPack; ++j) {
        const float difference = to_float(y.v[j]) - to_float(t.v[j]);
        g.v[j] = from_float<T>(scale * difference);
        sum += difference * difference;
      }
      reinterpret_cast<Vec*>(gradient)[p] = g;
    }
    scalar_begin = packs * kPack;
  }
  for (std::uint64_t i = scalar_begin + thread; i < count; i += stride) {
    sum += squared_error_step(output, target, gradient, i, scale);
  }
  // Fixed-shape tree reduction: the same inputs always give the same partial sum.
  __shared__ float block_sums[kThreads];
  block_sums[threadIdx.x] = sum;
  __syncthreads();
  for (unsigned width = kThreads / 2; width > 0; width /= 2) {
    if (threadIdx.x < width) block_sums[threadIdx.x] += block_sums[threadIdx.x + width];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial_sums[blockIdx.x] = block_sums[0];
}

}  // namespace

void launch_mse_loss(ElementType type, const void* output, const void* target, void* gradient,
                     std::uint64_t count, float gradient_scale, float* partial_sums,
                     cudaStream_t stream) {
  with_training_type(type, "mse_loss", [&](auto tag) {
    using T = decltype(tag);
    const std::uintptr_t pack_bytes = sizeof(T) * kPack;
    const bool vectorised = aligned_to(output, pack_bytes) && aligned_to(target, pack_bytes) &&
                            aligned_to(gradient, pack_bytes);
    mse_loss_kernel<T><<<kLossPartials, kThreads, 0, stream>>>(
        static_cast<const T*>(output), static_cast<const T*>(target), static_cast<T*>(gradient),
        count, gradient_scale, vectorised, partial_sums);
  });
}

}  // namespace collbench::kernels::training
