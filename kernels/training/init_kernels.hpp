// Host API of the kernels that initialise the synthetic model, data set and optimizer state.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "training_types.hpp"

namespace collbench::kernels::training {

// out[i] = synthetic_value(seed, key, first_index + i, bound) rounded to `type`, i in [0, count).
void launch_fill_synthetic(ElementType type, void* out, std::uint64_t count, std::uint64_t seed,
                           std::uint64_t key, std::uint64_t first_index, float bound,
                           cudaStream_t stream);

// out[i] = float(in[i]): float32 master weights from the model's copy.
void launch_widen_to_float(ElementType type, const void* in, float* out, std::uint64_t count,
                           cudaStream_t stream);

}  // namespace collbench::kernels::training
