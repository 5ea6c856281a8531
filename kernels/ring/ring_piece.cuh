// Moving one piece of the ring: out = op(in, own) (a reduction) or out = in (a copy), optionally
// stored to a second destination too, by a group of threads, in 16-byte packs with several loads
// in flight per thread. Shared by both ring kernels (a CTA per piece; pull: `in` is the previous
// rank's memory; push: `in` is this rank's staging slot or output, `out` the next rank's) and
// ring_sendrecv's reduction kernel (the whole grid).
#pragma once

#include <cstdint>

#include "reduce_ops.cuh"
#include "reduce_pack.cuh"
#include "ring/ring_schedule.hpp"

namespace collbench::kernels {

// Packs each thread has in flight per input: with 512 threads a CTA keeps 64 KiB of loads
// outstanding (32 KiB for 1- and 2-byte types, whose per-element arithmetic needs the registers
// the extra packs would take), to cover NVLink's latency (README.md, "What limits bandwidth").
template <typename T>
constexpr int ring_unroll() {
  return sizeof(T) >= 4 ? 8 : 4;
}

// One piece's operands. Every pointer points at the piece's first element, which starts a
// 16-byte line (ring_schedule.hpp), so index i is the same element everywhere.
template <typename T>
struct PieceOperands {
  T* out;        // destination (this rank's memory or the next rank's)
  T* also_out;   // a second destination, when kTwoOutputs
  const T* in;   // memory another rank writes during the kernel: loaded with L1 bypassed
  const T* own;  // this rank's input, when kReduce
};

#if defined(__CUDACC__)

// Moves `elements` elements (the piece may end mid-line only at the buffer's end). `aligned`:
// every pointer is 16-byte aligned, so whole lines move as packs; otherwise (a caller's odd
// offset) everything moves element by element. kReduce: out = op(in, own), divided by nranks when
// `average_now`; else out = in. kTwoOutputs: also_out receives the same values.
template <typename T, typename Op, bool kReduce, bool kTwoOutputs>
__device__ inline void move_piece(const PieceOperands<T>& piece, std::uint64_t elements,
                                  bool average_now, int nranks, bool aligned, std::uint64_t worker,
                                  std::uint64_t workers) {
  constexpr int kLine = Pack<T>::kCount;
  constexpr int kRingUnroll = ring_unroll<T>();
  std::uint64_t scalar_begin = 0;
  if (aligned) {
    const std::uint64_t last = elements / kLine;
    auto* out_packs = reinterpret_cast<Pack<T>*>(piece.out);
    auto* also_packs = reinterpret_cast<Pack<T>*>(piece.also_out);
    const auto* in_packs = reinterpret_cast<const Pack<T>*>(piece.in);
    const auto* own_packs = reinterpret_cast<const Pack<T>*>(piece.own);
    for (std::uint64_t line = worker; line < last; line += workers * kRingUnroll) {
      Pack<T> incoming[kRingUnroll];
      Pack<T> local[kRingUnroll];
      // All loads first, so kRingUnroll requests per thread and input are in flight together.
#pragma unroll
      for (int u = 0; u < kRingUnroll; ++u) {
        const std::uint64_t at = line + u * workers;
        if (at < last) incoming[u] = load_pack_shared(in_packs + at);
      }
      if constexpr (kReduce) {
#pragma unroll
        for (int u = 0; u < kRingUnroll; ++u) {
          const std::uint64_t at = line + u * workers;
          if (at < last) local[u] = load_pack(own_packs + at);
        }
      }
      // Then all stores: remote ones are posted and do not stall the thread.
#pragma unroll
      for (int u = 0; u < kRingUnroll; ++u) {
        const std::uint64_t at = line + u * workers;
        if (at >= last) continue;
        Pack<T> value = incoming[u];
        if constexpr (kReduce) value = combine_pack<Op>(incoming[u], local[u], average_now, nranks);
        store_pack(out_packs + at, value);
        if constexpr (kTwoOutputs) store_pack(also_packs + at, value);
      }
    }
    scalar_begin = last * kLine;
  }
  for (std::uint64_t i = scalar_begin + worker; i < elements; i += workers) {
    T value = load_element_shared(piece.in + i);
    if constexpr (kReduce) value = combine_element<Op>(value, piece.own[i], average_now, nranks);
    piece.out[i] = value;
    if constexpr (kTwoOutputs) piece.also_out[i] = value;
  }
}

#endif  // __CUDACC__

}  // namespace collbench::kernels
