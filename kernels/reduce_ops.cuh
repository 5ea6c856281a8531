// The reduction functors of the hand-built collectives: sum, prod, max, min (avg is a sum and a
// final division by the rank count), applied element by element to packs. half and bfloat16 are
// widened to float for the arithmetic and rounded once per combine.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "reduce_pack.cuh"

namespace collbench::kernels {

// The type arithmetic happens in.
template <typename T>
struct Accumulator {
  using type = T;
};
template <>
struct Accumulator<__half> {
  using type = float;
};
template <>
struct Accumulator<__nv_bfloat16> {
  using type = float;
};
template <typename T>
using accumulator_t = typename Accumulator<T>::type;

#if defined(__CUDACC__)

template <typename T>
__device__ inline accumulator_t<T> widen(T value) {
  if constexpr (std::is_same_v<T, __half>) {
    return __half2float(value);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __bfloat162float(value);
  } else {
    return value;
  }
}

template <typename T>
__device__ inline T narrow(accumulator_t<T> value) {
  if constexpr (std::is_same_v<T, __half>) {
    return __float2half_rn(value);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __float2bfloat16_rn(value);
  } else {
    return value;
  }
}

// Integer results wrap modulo 2^bits, as NCCL's do; the casts undo C++'s promotion to int.
struct SumOp {
  template <typename A>
  __device__ static A apply(A a, A b) {
    return static_cast<A>(a + b);
  }
};
struct ProdOp {
  template <typename A>
  __device__ static A apply(A a, A b) {
    return static_cast<A>(a * b);
  }
};
struct MaxOp {
  template <typename A>
  __device__ static A apply(A a, A b) {
    return a < b ? b : a;
  }
};
struct MinOp {
  template <typename A>
  __device__ static A apply(A a, A b) {
    return b < a ? b : a;
  }
};

// avg's last step: the sum divided by the rank count (integers truncate, as NCCL's do).
template <typename A>
__device__ inline A divide_by_ranks(A sum, int nranks) {
  return static_cast<A>(sum / static_cast<A>(nranks));
}

// One combine of two inputs, divided by the rank count when `average_now`.
template <typename Op, typename T>
__device__ inline T combine_element(T a, T b, bool average_now, int nranks) {
  accumulator_t<T> value = Op::apply(widen(a), widen(b));
  if (average_now) value = divide_by_ranks(value, nranks);
  return narrow<T>(value);
}

template <typename Op, typename T>
__device__ inline Pack<T> combine_pack(const Pack<T>& a, const Pack<T>& b, bool average_now,
                                       int nranks) {
  Pack<T> result;
#pragma unroll
  for (int i = 0; i < Pack<T>::kCount; ++i) {
    result.elements[i] = combine_element<Op>(a.elements[i], b.elements[i], average_now, nranks);
  }
  return result;
}

#endif  // __CUDACC__

}  // namespace collbench::kernels
