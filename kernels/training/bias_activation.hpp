// Host API of the separate bias, ReLU and bias-gradient kernels: what the GEMMs' epilogues do not
// (the backward always, unless --epilogue fused; the forward too when cuBLASLt offers no fusion).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "training_types.hpp"

namespace collbench::kernels::training {

// y[r][c] = act(y[r][c] + bias[c]) for a row-major rows x cols matrix; act is ReLU or identity.
void launch_bias_activation(ElementType type, void* y, const void* bias, std::uint64_t rows,
                            std::uint64_t cols, bool relu, cudaStream_t stream);

// db[c] = sum over r of dz[r][c], accumulated in float in a fixed order (deterministic).
void launch_bias_gradient(ElementType type, const void* dz, void* db, std::uint64_t rows,
                          std::uint64_t cols, cudaStream_t stream);

// Both in one pass over dz (rows x cols, row-major): ReLU's gradient from the layer's output y,
// then the bias gradient of the layer that produced y from the masked dz.
void launch_relu_backward_bias_gradient(ElementType type, void* dz, const void* y, void* db,
                                        std::uint64_t rows, std::uint64_t cols,
                                        cudaStream_t stream);

// The same with ReLU's gradient from the bit mask cuBLASLt's RELU_AUX(_BIAS) epilogue keeps for y
// instead of y itself (1/16 of its bytes in bfloat16): bit r * mask_ld + c, lowest bit first in
// each byte, is set where y[r][c] is positive. Throws std::invalid_argument when mask_ld is not a
// multiple of 128 of at least `cols` (cuBLASLt's rule).
void launch_relu_mask_backward_bias_gradient(ElementType type, void* dz, const void* mask,
                                             std::uint64_t mask_ld, void* db, std::uint64_t rows,
                                             std::uint64_t cols, cudaStream_t stream);

}  // namespace collbench::kernels::training
