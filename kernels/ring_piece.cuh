// Moving one piece of the ring: out = op(peer, own) (reduce-scatter) or out = peer (all-gather),
// by a group of threads, in 16-byte packs with several loads in flight per thread. Shared by the
// ring kernel (a CTA per piece) and ring_sendrecv's reduction kernel (the whole grid).
#pragma once

#include <cstdint>

#include "reduce_ops.cuh"
#include "reduce_pack.cuh"
#include "ring_schedule.hpp"

namespace collbench::kernels {

// Packs each thread has in flight per input: with 512 threads a CTA keeps 64 KiB of remote loads
// outstanding (32 KiB for 1- and 2-byte types, whose per-element arithmetic needs the registers
// the extra packs would take), to cover NVLink's latency (README.md, "What limits bandwidth").
template <typename T>
constexpr int ring_unroll() {
  return sizeof(T) >= 4 ? 8 : 4;
}

#if defined(__CUDACC__)

// `range` starts on a 16-byte line (ring_schedule.hpp) and may end mid-line only at the buffer's
// end. `aligned`: every pointer is 16-byte aligned, so whole lines move as packs; otherwise (a
// caller's odd offset) everything moves element by element. `peer` is read with L1 bypassed.
// kReduce: out = op(peer, own), divided by nranks when `average_now`; else out = peer.
template <typename T, typename Op, bool kReduce>
__device__ inline void move_piece(T* out, const T* peer, const T* own, ElementRange range,
                                  bool average_now, int nranks, bool aligned, std::uint64_t worker,
                                  std::uint64_t workers) {
  constexpr int kLine = Pack<T>::kCount;
  constexpr int kRingUnroll = ring_unroll<T>();
  std::uint64_t scalar_begin = range.begin;
  if (aligned) {
    const std::uint64_t first = range.begin / kLine;
    const std::uint64_t last = range.end / kLine;
    auto* out_packs = reinterpret_cast<Pack<T>*>(out);
    const auto* peer_packs = reinterpret_cast<const Pack<T>*>(peer);
    const auto* own_packs = reinterpret_cast<const Pack<T>*>(own);
    for (std::uint64_t line = first + worker; line < last; line += workers * kRingUnroll) {
      Pack<T> incoming[kRingUnroll];
      Pack<T> local[kRingUnroll];
      // All loads first, so kRingUnroll remote requests per thread are in flight together.
#pragma unroll
      for (int u = 0; u < kRingUnroll; ++u) {
        const std::uint64_t at = line + u * workers;
        if (at < last) incoming[u] = load_pack_shared(peer_packs + at);
      }
      if constexpr (kReduce) {
#pragma unroll
        for (int u = 0; u < kRingUnroll; ++u) {
          const std::uint64_t at = line + u * workers;
          if (at < last) local[u] = load_pack(own_packs + at);
        }
      }
#pragma unroll
      for (int u = 0; u < kRingUnroll; ++u) {
        const std::uint64_t at = line + u * workers;
        if (at >= last) continue;
        if constexpr (kReduce) {
          store_pack(out_packs + at, combine_pack<Op>(incoming[u], local[u], average_now, nranks));
        } else {
          store_pack(out_packs + at, incoming[u]);
        }
      }
    }
    if (last * kLine > scalar_begin) scalar_begin = last * kLine;
  }
  for (std::uint64_t i = scalar_begin + worker; i < range.end; i += workers) {
    const T incoming = load_element_shared(peer + i);
    if constexpr (kReduce) {
      out[i] = combine_element<Op>(incoming, own[i], average_now, nranks);
    } else {
      out[i] = incoming;
    }
  }
}

#endif  // __CUDACC__

}  // namespace collbench::kernels
