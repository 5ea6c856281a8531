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

// For i in [0, elements): op(sources[0][i], ..., sources[kRanks-1][i]) handed to `sink`, by the
// `workers` threads numbered `worker`, each with kUnroll lines of every source in flight. Sources
// may be memory another rank writes during the kernel (loaded with L1 bypassed). `aligned`: every
// source and everything the sink touches is 16-byte aligned, so whole lines move as packs;
// otherwise everything moves element by element. The sink:
//   State load(line)                       issued with the sources' loads (what the store needs);
//   void store(line, const Pack<T>&, State&)  the line's result;
//   void store_one(i, T)                   element i's result (unaligned, or past the last line).
template <typename T, typename Op, int kRanks, int kUnroll, typename Sink>
__device__ inline void reduce_in_rank_order_into(Sink& sink, const T* const (&sources)[kRanks],
                                                 std::uint64_t elements, int average_over,
                                                 bool aligned, std::uint64_t worker,
                                                 std::uint64_t workers) {
  constexpr int kLine = Pack<T>::kCount;
  std::uint64_t scalar_begin = 0;
  if (aligned) {
    const std::uint64_t lines = elements / kLine;
    for (std::uint64_t line = worker; line < lines; line += workers * kUnroll) {
      Pack<T> in[kUnroll][kRanks];
      typename Sink::State state[kUnroll];
      // Every load first, so kUnroll x kRanks requests per thread are in flight together.
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const std::uint64_t at = line + u * workers;
        if (at >= lines) continue;
#pragma unroll
        for (int r = 0; r < kRanks; ++r) {
          in[u][r] = load_pack_shared(reinterpret_cast<const Pack<T>*>(sources[r]) + at);
        }
        state[u] = sink.load(at);
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
        sink.store(at, result, state[u]);
      }
    }
    scalar_begin = lines * kLine;
  }
  for (std::uint64_t i = scalar_begin + worker; i < elements; i += workers) {
    T values[kRanks];
#pragma unroll
    for (int r = 0; r < kRanks; ++r) values[r] = load_element_shared(sources[r] + i);
    sink.store_one(i, combine_in_rank_order<T, Op, kRanks>(values, average_over));
  }
}

// The plain all-reduce's sink: every result into each of kOutputs outputs (which may be peers'
// memory).
template <typename T, int kOutputs>
struct StoreToOutputs {
  struct State {};
  T* const (&outputs)[kOutputs];
  __device__ State load(std::uint64_t) const { return {}; }
  __device__ void store(std::uint64_t line, const Pack<T>& result, State&) const {
#pragma unroll
    for (int o = 0; o < kOutputs; ++o)
      store_pack(reinterpret_cast<Pack<T>*>(outputs[o]) + line, result);
  }
  __device__ void store_one(std::uint64_t i, T result) const {
#pragma unroll
    for (int o = 0; o < kOutputs; ++o) outputs[o][i] = result;
  }
};

// outputs[o][i] = op(sources[0][i], ..., sources[kRanks-1][i]) for i in [0, elements)
// (reduce_in_rank_order_into with StoreToOutputs).
template <typename T, typename Op, int kRanks, int kOutputs, int kUnroll>
__device__ inline void reduce_in_rank_order(T* const (&outputs)[kOutputs],
                                            const T* const (&sources)[kRanks],
                                            std::uint64_t elements, int average_over, bool aligned,
                                            std::uint64_t worker, std::uint64_t workers) {
  StoreToOutputs<T, kOutputs> sink{outputs};
  reduce_in_rank_order_into<T, Op, kRanks, kUnroll>(sink, sources, elements, average_over, aligned,
                                                    worker, workers);
}

#endif  // __CUDACC__

}  // namespace collbench::kernels
