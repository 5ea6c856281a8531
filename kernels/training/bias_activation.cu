// Separate bias/ReLU forward, ReLU backward and bias-gradient kernels (see bias_activation.hpp).
#include "bias_activation.hpp"
#include "element_access.cuh"

namespace collbench::kernels::training {
namespace {

constexpr unsigned kThreads = 256;
// Column sums (bias gradients): each block sums a tile of 32 columns over every row, so 4096
// columns give 128 blocks and no second pass; its 1024 threads read 16-byte packs and cover many
// rows at once (256 row groups for bfloat16), so each SM keeps enough loads in flight even while
// the optimizer's updates compete for memory.
constexpr unsigned kTileColumns = 32;
constexpr unsigned kColumnSumThreads = 1024;

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

// db[c] = sum over rows of dz[r][c]. kReluBackward: first dz = y > 0 ? dz : 0 (stored back), so
// ReLU's gradient and the previous layer's bias gradient take one pass over dz.
template <typename T, bool kReluBackward>
__global__ void __launch_bounds__(kColumnSumThreads)
    column_sum_kernel(T* dz, const T* y, T* db, std::uint64_t rows, std::uint64_t cols,
                      bool vectorised) {
  constexpr unsigned kVector = 16 / sizeof(T);                     // elements per 16-byte pack
  constexpr unsigned kLanesPerRow = kTileColumns / kVector;        // threads covering a row's tile
  constexpr unsigned kRowGroups = kColumnSumThreads / kLanesPerRow;  // rows summed side by side
  __shared__ float partial[kRowGroups][kTileColumns + 1];  // +1: no bank conflicts below
  const unsigned lane = threadIdx.x % kLanesPerRow;
  const unsigned group = threadIdx.x / kLanesPerRow;
  const std::uint64_t first =
      static_cast<std::uint64_t>(blockIdx.x) * kTileColumns + lane * kVector;
  float sum[kVector] = {};
  if (vectorised && first + kVector <= cols) {
    using Vec = Pack<T, kVector>;
#pragma unroll 4
    for (std::uint64_t r = group; r < rows; r += kRowGroups) {
      Vec* at = reinterpret_cast<Vec*>(dz + r * cols + first);
      Vec gradient = *at;
      if constexpr (kReluBackward) {
        const Vec output = *reinterpret_cast<const Vec*>(y + r * cols + first);
#pragma unroll
        for (unsigned j = 0; j < kVector; ++j) {
          if (!(to_float(output.v[j]) > 0.0f)) gradient.v[j] = from_float<T>(0.0f);
        }
        *at = gradient;
      }
#pragma unroll
      for (unsigned j = 0; j < kVector; ++j) sum[j] += to_float(gradient.v[j]);
    }
  } else {
    for (std::uint64_t r = group; r < rows; r += kRowGroups) {
      for (unsigned j = 0; j < kVector && first + j < cols; ++j) {
        const std::uint64_t i = r * cols + first + j;
        if constexpr (kReluBackward) {
          if (!(to_float(y[i]) > 0.0f)) dz[i] = from_float<T>(0.0f);
        }
        sum[j] += to_float(dz[i]);
      }
    }
  }
#pragma unroll
  for (unsigned j = 0; j < kVector; ++j) partial[group][lane * kVector + j] = sum[j];
  __syncthreads();
  // Row groups are added in a fixed order: the result is deterministic.
  const std::uint64_t col = static_cast<std::uint64_t>(blockIdx.x) * kTileColumns + threadIdx.x;
  if (threadIdx.x < kTileColumns && col < cols) {
    float total = 0.0f;
    for (unsigned g = 0; g < kRowGroups; ++g) total += partial[g][threadIdx.x];
    db[col] = from_float<T>(total);
  }
}

template <typename T, bool kReluBackward>
void launch_column_sum(T* dz, const T* y, T* db, std::uint64_t rows, std::uint64_t cols,
                       cudaStream_t stream) {
  const unsigned blocks = static_cast<unsigned>((cols + kTileColumns - 1) / kTileColumns);
  // Packs need every row to start on 16 bytes.
  const bool vectorised = aligned_to(dz, 16) && (y == nullptr || aligned_to(y, 16)) &&
                          (cols * sizeof(T)) % 16 == 0;
  column_sum_kernel<T, kReluBackward>
      <<<blocks, kColumnSumThreads, 0, stream>>>(dz, y, db, rows, cols, vectorised);
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

void launch_bias_gradient(ElementType type, const void* dz, void* db, std::uint64_t rows,
                          std::uint64_t cols, cudaStream_t stream) {
  if (cols == 0) return;
  with_training_type(type, "bias_gradient", [&](auto tag) {
    using T = decltype(tag);
    // Only the ReLU variant writes dz.
    launch_column_sum<T, false>(const_cast<T*>(static_cast<const T*>(dz)), nullptr,
                                static_cast<T*>(db), rows, cols, stream);
  });
}

void launch_relu_backward_bias_gradient(ElementType type, void* dz, const void* y, void* db,
                                        std::uint64_t rows, std::uint64_t cols,
                                        cudaStream_t stream) {
  if (cols == 0) return;
  with_training_type(type, "relu_backward_bias_gradient", [&](auto tag) {
    using T = decltype(tag);
    launch_column_sum<T, true>(static_cast<T*>(dz), static_cast<const T*>(y),
                               static_cast<T*>(db), rows, cols, stream);
  });
}

}  // namespace collbench::kernels::training
