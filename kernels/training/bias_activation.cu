// Separate bias/ReLU forward, ReLU backward and bias-gradient kernels (see bias_activation.hpp).
#include "bias_activation.hpp"
#include "element_access.cuh"

namespace collbench::kernels::training {
namespace {

constexpr unsigned kThreads = 256;
// Column sums: 8 warps per block; a warp's 32 threads take one 16-byte pack of a row each.
constexpr unsigned kColumnSumThreads = 256;
constexpr unsigned kColumnSumWarpSize = 32;
// Columns of one tile: a warp's threads, one 16-byte pack of columns each.
template <typename T>
constexpr unsigned kColumnSumTile = kColumnSumWarpSize*(16 / sizeof(T));
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
//
// Block (x, y) sums column tile x (kColumnSumWarpSize threads x one 16-byte pack of columns each)
// over row band y, its warps taking the band's rows in turn, so every warp reads 512 contiguous
// bytes of a row (a tile of 32-column blocks over every row read 64-byte pieces of 2048 rows,
// which lost half its speed beside the all-reduce's copies and reductions). Each block writes its
// band's partial sums; the last block of a tile to finish (a ticket per tile, reset by that block
// for the next launch) adds the bands in order: the result is deterministic.
template <typename T, bool kReluBackward>
__global__ void __launch_bounds__(kColumnSumThreads)
    column_sum_kernel(T* dz, const T* y, T* db, std::uint64_t rows, std::uint64_t cols,
                      ColumnSumScratch scratch, bool vectorised) {
  constexpr unsigned kVector = 16 / sizeof(T);  // columns per thread: one 16-byte pack
  constexpr unsigned kWarps = kColumnSumThreads / kColumnSumWarpSize;
  constexpr unsigned kTile = kColumnSumTile<T>;
  __shared__ float warp_sums[kWarps][kTile + 1];  // +1: no bank conflicts below
  __shared__ bool last_block;
  const unsigned lane = threadIdx.x % kColumnSumWarpSize;
  const unsigned warp = threadIdx.x / kColumnSumWarpSize;
  const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * kTile + lane * kVector;
  const std::uint64_t bands = gridDim.y;
  const std::uint64_t row_begin = rows * blockIdx.y / bands;
  const std::uint64_t row_end = rows * (blockIdx.y + 1) / bands;
  float sum[kVector] = {};
  if (vectorised && first + kVector <= cols) {
    using Vec = Pack<T, kVector>;
#pragma unroll 4
    for (std::uint64_t r = row_begin + warp; r < row_end; r += kWarps) {
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
    for (std::uint64_t r = row_begin + warp; r < row_end; r += kWarps) {
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
  for (unsigned j = 0; j < kVector; ++j) warp_sums[warp][lane * kVector + j] = sum[j];
  __syncthreads();
  // The band's partial sums, warps added in a fixed order.
  const std::uint64_t tile_first = static_cast<std::uint64_t>(blockIdx.x) * kTile;
  for (unsigned c = threadIdx.x; c < kTile; c += blockDim.x) {
    if (tile_first + c >= cols) continue;
    float band = 0.0f;
    for (unsigned w = 0; w < kWarps; ++w) band += warp_sums[w][c];
    scratch.partials[blockIdx.y * cols + tile_first + c] = band;
  }
  __threadfence();  // the partials are visible to whichever block of the tile finishes last
  __syncthreads();
  if (threadIdx.x == 0) {
    last_block = atomicAdd(&scratch.tickets[blockIdx.x], 1u) == gridDim.y - 1;
  }
  __syncthreads();
  if (!last_block) return;
  __threadfence();  // the other bands' partials, published before their tickets
  for (unsigned c = threadIdx.x; c < kTile; c += blockDim.x) {
    if (tile_first + c >= cols) continue;
    float total = 0.0f;
    for (std::uint64_t b = 0; b < bands; ++b) {
      total += __ldcg(&scratch.partials[b * cols + tile_first + c]);
    }
    db[tile_first + c] = from_float<T>(total);
  }
  if (threadIdx.x == 0) scratch.tickets[blockIdx.x] = 0;  // ready for the next launch
}

template <typename T, bool kReluBackward>
void launch_column_sum(T* dz, const T* y, T* db, std::uint64_t rows, std::uint64_t cols,
                       const ColumnSumScratch& scratch, cudaStream_t stream) {
  constexpr unsigned kTile = kColumnSumTile<T>;
  const dim3 grid(static_cast<unsigned>((cols + kTile - 1) / kTile),
                  static_cast<unsigned>(column_sum_bands(rows)));
  // Packs need every row to start on 16 bytes.
  const bool vectorised =
      aligned_to(dz, 16) && (y == nullptr || aligned_to(y, 16)) && (cols * sizeof(T)) % 16 == 0;
  column_sum_kernel<T, kReluBackward>
      <<<grid, kColumnSumThreads, 0, stream>>>(dz, y, db, rows, cols, scratch, vectorised);
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

std::uint64_t column_sum_bands(std::uint64_t rows) {
  return rows < kColumnSumMaxBands ? (rows > 0 ? rows : 1) : kColumnSumMaxBands;
}

std::size_t column_sum_scratch_bytes(std::uint64_t rows, std::uint64_t cols) {
  const std::uint64_t narrowest_tile = kColumnSumTile<float>;  // the most tiles: a ticket each
  const std::uint64_t tiles = (cols + narrowest_tile - 1) / narrowest_tile;
  return column_sum_bands(rows) * cols * sizeof(float) + tiles * sizeof(unsigned);
}

ColumnSumScratch column_sum_scratch(void* memory, std::uint64_t rows, std::uint64_t cols) {
  auto* partials = static_cast<float*>(memory);
  return {partials, reinterpret_cast<unsigned*>(partials + column_sum_bands(rows) * cols)};
}

void launch_bias_gradient(ElementType type, const void* dz, void* db, std::uint64_t rows,
                          std::uint64_t cols, const ColumnSumScratch& scratch,
                          cudaStream_t stream) {
  if (cols == 0) return;
  with_training_type(type, "bias_gradient", [&](auto tag) {
    using T = decltype(tag);
    // Only the ReLU variant writes dz.
    launch_column_sum<T, false>(const_cast<T*>(static_cast<const T*>(dz)), nullptr,
                                static_cast<T*>(db), rows, cols, scratch, stream);
  });
}

void launch_relu_backward_bias_gradient(ElementType type, void* dz, const void* y, void* db,
                                        std::uint64_t rows, std::uint64_t cols,
                                        const ColumnSumScratch& scratch, cudaStream_t stream) {
  if (cols == 0) return;
  with_training_type(type, "relu_backward_bias_gradient", [&](auto tag) {
    using T = decltype(tag);
    launch_column_sum<T, true>(static_cast<T*>(dz), static_cast<const T*>(y), static_cast<T*>(db),
                               rows, cols, scratch, stream);
  });
}

}  // namespace collbench::kernels::training
