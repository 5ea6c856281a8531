// Host API of the separate bias, ReLU and bias-gradient kernels: the path used when cuBLASLt offers
// no fused epilogue for a GEMM (and the reference the fused path is tested against).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "training_types.hpp"

namespace collbench::kernels::training {

// y[r][c] = act(y[r][c] + bias[c]) for a row-major rows x cols matrix; act is ReLU or identity.
void launch_bias_activation(ElementType type, void* y, const void* bias, std::uint64_t rows,
                            std::uint64_t cols, bool relu, cudaStream_t stream);

// dz[i] = y[i] > 0 ? dz[i] : 0: ReLU's gradient from the layer's output (y > 0 exactly when the
// pre-activation was > 0).
void launch_relu_backward(ElementType type, void* dz, const void* y, std::uint64_t count,
                          cudaStream_t stream);

// db[c] = sum over r of dz[r][c], accumulated in float in a fixed order (deterministic).
void launch_bias_gradient(ElementType type, const void* dz, void* db, std::uint64_t rows,
                          std::uint64_t cols, cudaStream_t stream);

}  // namespace collbench::kernels::training
