// Host API of the mean-squared-error loss kernel: the loss gradient and per-block partial sums.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "training_types.hpp"

namespace collbench::kernels::training {

// Blocks of the loss kernel; the squared error is the sum of their partial sums, added on the
// host in a fixed order so the reported loss is deterministic.
inline constexpr int kLossPartials = 512;

// For i in [0, count): gradient[i] = gradient_scale * (output[i] - target[i]) in `type`, and
// partial_sums[b] (float, kLossPartials of them) = the sum of (output - target)^2 over block b's
// elements. With loss = mean((output - target)^2) over `count` elements, gradient_scale = 2 /
// count.
void launch_mse_loss(ElementType type, const void* output, const void* target, void* gradient,
                     std::uint64_t count, float gradient_scale, float* partial_sums,
                     cudaStream_t stream);

}  // namespace collbench::kernels::training
