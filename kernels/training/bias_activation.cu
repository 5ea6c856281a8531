// Separate bias/ReLU forward, ReLU backward and bias-gradient kernels (see bias_activation.hpp).
#include "bias_activation.hpp"
#include "element_access.cuh"

namespace collbench::kernels::training {
namespace {

constexpr unsigned kThreads = 256;
// Bias gradient tiling: 32 columns per block (one warp wide, coalesced), 8 row groups.
constexpr unsigned kTileColumns = 32;
constexpr unsigned kRowGroups = 8;

template <typename T>
__global__ void bias_activation_kernel(T* y, const T* bias, std::uint64_t rows, std::uint64_t cols,
                                       bool relu) {
  const std::uint64_t count = rows * cols;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
       i < count; i += stride) {
    float value = to_float(y[i]) + to_float(bias[i % cols]);
    if (relu && value < 0.0f) value = 0.0f;
    y[i] = from_float<T>(value);
  }
}

template <typename T>
__global__ void relu_backward_kernel(T* dz, const T* y, std::uint64_t count) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
       i < count; i += stride) {
    if (!(to_float(y[i]) > 0.0f)) dz[i] = from_float<T>(0.0f);
  }
}

template <typename T>
__global__ void bias_gradient_kernel(const T* dz, T* db, std::uint64_t rows, std::uint64_t cols) {
  __shared__ float partial[kRowGroups][kTileColumns];
  const std::uint64_t col = static_cast<std::uint64_t>(blockIdx.x) * kTileColumns + threadIdx.x;
  float sum = 0.0f;
  if (col < cols) {
    for (std::uint64_t r = threadIdx.y; r < rows; r += kRowGroups)
      sum += to_float(dz[r * cols + col]);
  }
  partial[threadIdx.y][threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.y == 0 && col < cols) {
    float total = 0.0f;
    for (unsigned g = 0; g < kRowGroups; ++g) total += partial[g][threadIdx.x];
    db[col] = from_float<T>(total);
  }
}

}  // namespace

void launch_bias_activation(ElementType type, void* y, const void* bias, std::uint64_t rows,
                            std::uint64_t cols, bool relu, cudaStream_t stream) {
  if (rows * cols == 0) return;
  with_training_type(type, "bias_activation", [&](auto tag) {
    using T = decltype(tag);
    bias_activation_kernel<T><<<grid_for(rows * cols, kThreads), kThreads, 0, stream>>>(
        static_cast<T*>(y), static_cast<const T*>(bias), rows, cols, relu);
  });
}

void launch_relu_backward(ElementType type, void* dz, const void* y, std::uint64_t count,
                          cudaStream_t stream) {
  if (count == 0) return;
  with_training_type(type, "relu_backward", [&](auto tag) {
    using T = decltype(tag);
    relu_backward_kernel<T><<<grid_for(count, kThreads), kThreads, 0, stream>>>(
        static_cast<T*>(dz), static_cast<const T*>(y), count);
  });
}

void launch_bias_gradient(ElementType type, const void* dz, void* db, std::uint64_t rows,
                          std::uint64_t cols, cudaStream_t stream) {
  if (cols == 0) return;
  with_training_type(type, "bias_gradient", [&](auto tag) {
    using T = decltype(tag);
    const unsigned blocks = static_cast<unsigned>((cols + kTileColumns - 1) / kTileColumns);
    bias_gradient_kernel<T><<<blocks, dim3(kTileColumns, kRowGroups), 0, stream>>>(
        static_cast<const T*>(dz), static_cast<T*>(db), rows, cols);
  });
}

}  // namespace collbench::kernels::training
