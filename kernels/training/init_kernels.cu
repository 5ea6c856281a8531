// Initialisation kernels: synthetic values (synthetic_values.cuh) written in the model's type.
#include "element_access.cuh"
#include "init_kernels.hpp"
#include "synthetic_values.cuh"

namespace collbench::kernels::training {
namespace {

constexpr unsigned kThreads = 256;

template <typename T>
__global__ void fill_synthetic_kernel(T* out, std::uint64_t count, std::uint64_t seed,
                                      std::uint64_t key, std::uint64_t first_index, float bound) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
       i < count; i += stride) {
    out[i] = from_float<T>(synthetic_value(seed, key, first_index + i, bound));
  }
}

template <typename T>
__global__ void widen_kernel(const T* in, float* out, std::uint64_t count) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
       i < count; i += stride) {
    out[i] = to_float(in[i]);
  }
}

}  // namespace

void launch_fill_synthetic(ElementType type, void* out, std::uint64_t count, std::uint64_t seed,
                           std::uint64_t key, std::uint64_t first_index, float bound,
                           cudaStream_t stream) {
  if (count == 0) return;
  with_training_type(type, "fill_synthetic", [&](auto tag) {
    using T = decltype(tag);
    fill_synthetic_kernel<T><<<grid_for(count, kThreads), kThreads, 0, stream>>>(
        static_cast<T*>(out), count, seed, key, first_index, bound);
  });
}

void launch_widen_to_float(ElementType type, const void* in, float* out, std::uint64_t count,
                           cudaStream_t stream) {
  if (count == 0) return;
  with_training_type(type, "widen_to_float", [&](auto tag) {
    using T = decltype(tag);
    widen_kernel<T>
        <<<grid_for(count, kThreads), kThreads, 0, stream>>>(static_cast<const T*>(in), out, count);
  });
}

}  // namespace collbench::kernels::training
