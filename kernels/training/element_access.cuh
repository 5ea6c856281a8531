// Device helpers shared by the training-step kernels: float <-> element conversions and the
// choice of the CUDA type that stores an ElementType. Included by .cu files only.
#pragma once

#include <cuda_bf16.h>

#include <cstdint>

#include "training_types.hpp"

namespace collbench::kernels::training {

__device__ inline float to_float(float value) {
  return value;
}
__device__ inline float to_float(__nv_bfloat16 value) {
  return __bfloat162float(value);
}

template <typename T>
__device__ inline T from_float(float value);
template <>
__device__ inline float from_float<float>(float value) {
  return value;
}
template <>
__device__ inline __nv_bfloat16 from_float<__nv_bfloat16>(float value) {
  return __float2bfloat16_rn(value);
}

// N elements moved with one load or store (8 or 16 bytes for the packs used here).
template <typename T, int N>
struct alignas(sizeof(T) * N) Pack {
  T v[N];
};

// Calls `body(T{})` with the CUDA type storing `type` (float32 or bfloat16 only).
template <typename Body>
void with_training_type(ElementType type, const char* kernel, Body&& body) {
  require_training_type(type, kernel);
  if (type == ElementType::float32) {
    body(float{});
  } else {
    body(__nv_bfloat16{});
  }
}

// Blocks for a grid-stride loop over `work_items`: enough to fill any current GPU, no more.
inline unsigned grid_for(std::uint64_t work_items, unsigned threads, unsigned max_blocks = 4096) {
  const std::uint64_t wanted = (work_items + threads - 1) / threads;
  if (wanted == 0) return 1;
  return static_cast<unsigned>(wanted < max_blocks ? wanted : max_blocks);
}

inline bool aligned_to(const void* pointer, std::uintptr_t bytes) {
  return reinterpret_cast<std::uintptr_t>(pointer) % bytes == 0;
}

}  // namespace collbench::kernels::training
