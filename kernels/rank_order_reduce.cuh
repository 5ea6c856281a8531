// Reducing every rank's copy of a piece in rank order 0..n-1, in the accumulator type, rounded
// once: the same order wherever the piece is reduced, so every rank that reduces it (oneshot), or
// receives it from the one rank that did (twoshot), holds bitwise the same values. Shared by the
// one-shot and two-shot kernels and the copy-engine all-reduce's reduction.
#pragma once

#include <cstdint>

#include "reduce_ops.cuh"
#include "reduce_pack.cuh"

namespace collbench::kernels {

#if defined(__CUDACC__)

// Element values of every rank combined in rank order; `average_over` ranks divide the result
// (0: no division).
template <typename T, typename Op, int kRanks>
__device__ inline T combine_in_rank_order(const T (&values)[kRanks], int average_over) {
  accumulator_t<T> value = widen(values[0]);
#pragma unroll
  for (int r = 1; r < kRanks; ++r) value = Op::apply(value, widen(values[r]));
  if (average_over != 0) value = divide_by_ranks(value, average_over);
  return narrow<T>(value);
}

// outputs[o][i] = op(sources[0][i], ..., sources[kRanks-1][i]) for i in [0, elements), by the
// `workers` threads numbered `worker`, each with kUnroll lines of every source in flight. Sources
// may be memory another rank writes during the kernel (loaded with L1 bypassed); outputs may be
// peers' memory. `aligned`: every pointer is 16-byte aligned, so whole lines move as packs;
// otherwise everything moves element by element.
template <typename T, typename Op, int kRanks, int kOutputs, int kUnroll>
__device__ inline void reduce_in_rank_order(T* const (&outputs)[kOutputs],
                                            const T* const (&sources)[kRanks],
                                            std::uint64_t elements, int average_over, bool aligned,
                                            std::uint64_t worker, std::uint64_t workers) {
  constexpr int kLine = Pack<T>::kCount;
  std::uint64_t scalar_begin = 0;
  if (aligned) {
    const std::uint64_t lines = elements / kLine;
    for (std::uint64_t line = worker; line < lines; line += workers * kUnroll) {
      Pack<T> in[kUnroll][kRanks];
      // Every load first, so kUnroll x kRanks requests per thread are in flight together.
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const std::uint64_t at = line + u * workers;
#pragma unroll
        for (int r = 0; r < kRanks; ++r) {
          if (at < lines) {
            in[u][r] = load_pack_shared(reinterpret_cast<const Pack<T>*>(sources[r]) + at);
          }
        }
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const std::uint64_t at = line + u * workers;
        if (at >= lines) continue;
        Pack<T> result;
#pragma unroll
        for (int e = 0; e < kLine; ++e) {
          T values[kRanks];
#pragma unroll
          for (int r = 0; r < kRanks; ++r) values[r] = in[u][r].elements[e];
          result.elements[e] = combine_in_rank_order<T, Op, kRanks>(values, average_over);
        }
#pragma unroll
        for (int o = 0; o < kOutputs; ++o) {
          store_pack(reinterpret_cast<Pack<T>*>(outputs[o]) + at, result);
        }
      }
    }
    scalar_begin = lines * kLine;
  }
  for (std::uint64_t i = scalar_begin + worker; i < elements; i += workers) {
    T values[kRanks];
#pragma unroll
    for (int r = 0; r < kRanks; ++r) values[r] = load_element_shared(sources[r] + i);
    const T result = combine_in_rank_order<T, Op, kRanks>(values, average_over);
#pragma unroll
    for (int o = 0; o < kOutputs; ++o) outputs[o][i] = result;
  }
}

#endif  // __CUDACC__

}  // namespace collbench::kernels
