// Host API of the separate bias, ReLU and bias-gradient kernels: what the GEMMs' epilogues do not
// (the backward always, unless --epilogue fused; the forward too when cuBLASLt offers no fusion).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "training_types.hpp"

namespace collbench::kernels::training {

// y[r][c] = act(y[r][c] + bias[c]) for a row-major rows x cols matrix; act is ReLU or identity.
void launch_bias_activation(ElementType type, void* y, const void* bias, std::uint64_t rows,
                            std::uint64_t cols, bool relu, cudaStream_t stream);

// The bias-gradient kernels' device scratch: per row band, the band's column sums, then a ticket
// per column tile. Zeroed once before the first launch; each launch leaves the tickets at zero.
// Launches that share one scratch must run one after another (one stream).
struct ColumnSumScratch {
  float* partials;
  unsigned* tickets;
};
constexpr std::uint64_t kColumnSumMaxBands = 32;
// Row bands a rows-row matrix is cut into (at most kColumnSumMaxBands, at least 1).
std::uint64_t column_sum_bands(std::uint64_t rows);
// Bytes of scratch for matrices of up to `rows` x `cols`, and that memory as the struct.
std::size_t column_sum_scratch_bytes(std::uint64_t rows, std::uint64_t cols);
ColumnSumScratch column_sum_scratch(void* memory, std::uint64_t rows, std::uint64_t cols);

// db[c] = sum over r of dz[r][c], accumulated in float in a fixed order (deterministic).
void launch_bias_gradient(ElementType type, const void* dz, void* db, std::uint64_t rows,
                          std::uint64_t cols, const ColumnSumScratch& scratch, cudaStream_t stream);

// Both in one pass over dz (rows x cols, row-major): ReLU's gradient from the layer's output y,
// then the bias gradient of the layer that produced y from the masked dz.
void launch_relu_backward_bias_gradient(ElementType type, void* dz, const void* y, void* db,
                                        std::uint64_t rows, std::uint64_t cols,
                                        const ColumnSumScratch& scratch, cudaStream_t stream);

}  // namespace collbench::kernels::training
