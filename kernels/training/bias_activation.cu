// Separate bias/ReLU forward, ReLU backward and bias-gradient kernels (see bias_activation.hpp).
#include <stdexcept>
#include <string>

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

// Where ReLU's gradient comes from, if anywhere: the layer's output y (1 where y > 0), or the
// bit mask cuBLASLt's RELU_AUX epilogue kept (bit r * mask_ld + c, lowest bit first in each
// byte, set where output (r, c) is positive) - 1/16 of y's bytes for bfloat16.
enum class ReluGradient { none, from_output, from_mask };

// Inputs of column_sum_kernel beside dz and db.
template <typename T>
struct ReluSource {
  const T* y;                // from_output
  const std::uint8_t* mask;  // from_mask
  std::uint64_t mask_ld;     // from_mask: bits per row, a multiple of 128
};

// Whether ReLU passes the gradient of element (r, c).
template <typename T, ReluGradient kRelu>
__device__ inline bool relu_passes(const ReluSource<T>& source, std::uint64_t r, std::uint64_t c,
                                   std::uint64_t cols) {
  if constexpr (kRelu == ReluGradient::from_output) {
    return to_float(source.y[r * cols + c]) > 0.0f;
  } else {
    const std::uint64_t bit = r * source.mask_ld + c;
    return ((source.mask[bit / 8] >> (bit % 8)) & 1u) != 0;
  }
}

// db[c] = sum over rows of dz[r][c]. With ReLU's gradient, first dz = 0 where ReLU blocked it
// (stored back), so ReLU's gradient and the previous layer's bias gradient take one pass over dz.
template <typename T, ReluGradient kRelu>
__global__ void __launch_bounds__(kColumnSumThreads)
    column_sum_kernel(T* dz, ReluSource<T> source, T* db, std::uint64_t rows, std::uint64_t cols,
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
      if constexpr (kRelu == ReluGradient::from_output) {
        const Vec output = *reinterpret_cast<const Vec*>(source.y + r * cols + first);
#pragma unroll
        for (unsigned j = 0; j < kVector; ++j) {
          if (!(to_float(output.v[j]) > 0.0f)) gradient.v[j] = from_float<T>(0.0f);
        }
        *at = gradient;
      } else if constexpr (kRelu == ReluGradient::from_mask) {
        // The pack's kVector bits share one byte: kVector divides 8, `first` is a multiple of it
        // and mask_ld of 128.
        const std::uint64_t bit = r * source.mask_ld + first;
        const unsigned bits = source.mask[bit / 8] >> (bit % 8);
#pragma unroll
        for (unsigned j = 0; j < kVector; ++j) {
          if (((bits >> j) & 1u) == 0) gradient.v[j] = from_float<T>(0.0f);
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
        if constexpr (kRelu != ReluGradient::none) {
          if (!relu_passes<T, kRelu>(source, r, first + j, cols)) dz[i] = from_float<T>(0.0f);
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

template <typename T, ReluGradient kRelu>
void launch_column_sum(T* dz, const ReluSource<T>& source, T* db, std::uint64_t rows,
                       std::uint64_t cols, cudaStream_t stream) {
  const unsigned blocks = static_cast<unsigned>((cols + kTileColumns - 1) / kTileColumns);
  // Packs need every row to start on 16 bytes.
  const bool vectorised = aligned_to(dz, 16) && (source.y == nullptr || aligned_to(source.y, 16)) &&
                          (cols * sizeof(T)) % 16 == 0;
  column_sum_kernel<T, kRelu>
      <<<blocks, kColumnSumThreads, 0, stream>>>(dz, source, db, rows, cols, vectorised);
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
    launch_column_sum<T, ReluGradient::none>(const_cast<T*>(static_cast<const T*>(dz)), {},
                                             static_cast<T*>(db), rows, cols, stream);
  });
}

void launch_relu_backward_bias_gradient(ElementType type, void* dz, const void* y, void* db,
                                        std::uint64_t rows, std::uint64_t cols,
                                        cudaStream_t stream) {
  if (cols == 0) return;
  with_training_type(type, "relu_backward_bias_gradient", [&](auto tag) {
    using T = decltype(tag);
    launch_column_sum<T, ReluGradient::from_output>(static_cast<T*>(dz),
                                                    {static_cast<const T*>(y), nullptr, 0},
                                                    static_cast<T*>(db), rows, cols, stream);
  });
}

void launch_relu_mask_backward_bias_gradient(ElementType type, void* dz, const void* mask,
                                             std::uint64_t mask_ld, void* db, std::uint64_t rows,
                                             std::uint64_t cols, cudaStream_t stream) {
  if (cols == 0) return;
  if (mask_ld % 128 != 0 || mask_ld < cols) {
    throw std::invalid_argument("relu_mask_backward_bias_gradient: mask_ld " +
                                std::to_string(mask_ld) +
                                " is not a multiple of 128 >= " + std::to_string(cols));
  }
  with_training_type(type, "relu_mask_backward_bias_gradient", [&](auto tag) {
    using T = decltype(tag);
    launch_column_sum<T, ReluGradient::from_mask>(
        static_cast<T*>(dz), {nullptr, static_cast<const std::uint8_t*>(mask), mask_ld},
        static_cast<T*>(db), rows, cols, stream);
  });
}

}  // namespace collbench::kernels::training
