// Fill and check kernels: inputs from (seed, rank, index), outputs compared on the GPU against the
// exact expected value, mismatches counted with one atomic per block.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "fill_check.hpp"

namespace collbench::kernels {
namespace {

template <typename T>
__device__ T from_double(double value) {
  if constexpr (std::is_same_v<T, __half>) {
    return __double2half(value);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __double2bfloat16(value);
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(value);
  } else {
    // Integers wrap modulo 2^bits, as the GPU's integer arithmetic does on overflow.
    return static_cast<T>(static_cast<unsigned long long>(static_cast<long long>(value)));
  }
}

template <typename T>
__device__ double to_double(T value) {
  if constexpr (std::is_same_v<T, __half>) {
    return static_cast<double>(__half2float(value));
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return static_cast<double>(__bfloat162float(value));
  } else {
    return static_cast<double>(value);
  }
}

template <typename T>
__global__ void fill_kernel(T* data, std::uint64_t count, PatternParams params, int rank) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
       i < count; i += stride) {
    data[i] = from_double<T>(input_value(params, rank, i));
  }
}

template <typename T>
__device__ bool matches(T got, double expected, const PatternParams& params) {
  if (params.reduction == Reduction::avg && params.type > ElementType::uint64) {
    const double difference = to_double(got) - expected;
    return (difference < 0 ? -difference : difference) <= average_tolerance(params, expected);
  }
  // Exact: compare in the element type, so integer wrap-around and float rounding of the
  // expected value follow the same rules as the collective's own arithmetic.
  return to_double(got) == to_double(from_double<T>(expected));
}

// Whether every byte of `value` is the poison byte (an output nothing wrote).
template <typename T>
__device__ bool holds_poison(T value, unsigned char poison) {
  unsigned char bytes[sizeof(T)];
  memcpy(bytes, &value, sizeof(T));
  for (unsigned char byte : bytes) {
    if (byte != poison) return false;
  }
  return true;
}

template <typename T>
__global__ void count_mismatches_kernel(const T* data, std::uint64_t count, PatternParams params,
                                        OutputRule rule, int rank, unsigned long long* mismatches) {
  unsigned long long local = 0;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t j = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
       j < count; j += stride) {
    const bool right = beyond_received(params, rule, j)
                           ? holds_poison(data[j], poison_byte(params.type))
                           : matches(data[j], expected_value(params, rule, rank, j), params);
    if (!right) ++local;
  }
  // Warp-level sum first so a mostly-wrong buffer does not serialise on one atomic.
  for (int offset = 16; offset > 0; offset /= 2)
    local += __shfl_down_sync(0xffffffffu, local, offset);
  if ((threadIdx.x & 31) == 0 && local > 0) atomicAdd(mismatches, local);
}

template <typename T>
__global__ void corrupt_kernel(T* data, std::uint64_t index) {
  data[index] = from_double<T>(to_double(data[index]) + 1.0);
}

constexpr int kThreads = 256;

unsigned blocks_for(std::uint64_t count) {
  const std::uint64_t wanted = (count + kThreads - 1) / kThreads;
  // Enough blocks to fill any current GPU; the grid-stride loops cover the rest.
  return static_cast<unsigned>(wanted < 4096 ? (wanted == 0 ? 1 : wanted) : 4096);
}

// Calls `body(T{})` with the CUDA type that stores `type`.
template <typename Body>
void with_element_type(ElementType type, Body&& body) {
  switch (type) {
    case ElementType::int8:
      body(std::int8_t{});
      break;
    case ElementType::uint8:
      body(std::uint8_t{});
      break;
    case ElementType::int32:
      body(std::int32_t{});
      break;
    case ElementType::uint32:
      body(std::uint32_t{});
      break;
    case ElementType::int64:
      body(std::int64_t{});
      break;
    case ElementType::uint64:
      body(std::uint64_t{});
      break;
    case ElementType::half:
      body(__half{});
      break;
    case ElementType::float32:
      body(float{});
      break;
    case ElementType::float64:
      body(double{});
      break;
    case ElementType::bfloat16:
      body(__nv_bfloat16{});
      break;
  }
}

}  // namespace

void launch_fill(void* data, std::uint64_t count, const PatternParams& params, int rank,
                 cudaStream_t stream) {
  if (count == 0) return;
  with_element_type(params.type, [&](auto tag) {
    using T = decltype(tag);
    fill_kernel<T>
        <<<blocks_for(count), kThreads, 0, stream>>>(static_cast<T*>(data), count, params, rank);
  });
}

void launch_count_mismatches(const void* data, std::uint64_t count, const PatternParams& params,
                             const OutputRule& rule, int rank, unsigned long long* mismatches,
                             cudaStream_t stream) {
  if (count == 0) return;
  with_element_type(params.type, [&](auto tag) {
    using T = decltype(tag);
    count_mismatches_kernel<T><<<blocks_for(count), kThreads, 0, stream>>>(
        static_cast<const T*>(data), count, params, rule, rank, mismatches);
  });
}

void launch_corrupt_element(void* data, std::uint64_t index, const PatternParams& params,
                            cudaStream_t stream) {
  with_element_type(params.type, [&](auto tag) {
    using T = decltype(tag);
    corrupt_kernel<T><<<1, 1, 0, stream>>>(static_cast<T*>(data), index);
  });
}

cudaError_t preload_fill_check() {
  cudaError_t status = cudaSuccess;
  for (int type = 0; type <= static_cast<int>(ElementType::bfloat16); ++type) {
    with_element_type(static_cast<ElementType>(type), [&](auto tag) {
      using T = decltype(tag);
      cudaFuncAttributes attributes{};
      if (status == cudaSuccess) status = cudaFuncGetAttributes(&attributes, fill_kernel<T>);
      if (status == cudaSuccess)
        status = cudaFuncGetAttributes(&attributes, count_mismatches_kernel<T>);
      if (status == cudaSuccess) status = cudaFuncGetAttributes(&attributes, corrupt_kernel<T>);
    });
  }
  return status;
}

}  // namespace collbench::kernels
