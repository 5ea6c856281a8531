// The two-shot all-reduce's kernel (twoshot_all_reduce.cu), templated on what the owner does
// with each reduced piece of its chunk, so that the training step's update can run inside it
// (kernels/training/twoshot_sgd.cu). Per slice a CTA stores its input's piece of every other
// rank's chunk into that rank's staging (scatter), waits until every peer has done the same for
// its own chunk, then reduces that piece in rank order and hands it to the gather policy.
// Protocol: README.md, "twoshot". Included by .cu files only.
#pragma once

#include "rank_order_reduce.cuh"
#include "ring/ring_piece.cuh"
#include "twoshot/twoshot_all_reduce.hpp"

namespace collbench::kernels {

// Lines of every rank in flight per thread while reducing: about 8 packs whatever the rank count.
template <int kRanks>
constexpr int twoshot_reduce_unroll() {
  return kRanks <= 2 ? 4 : kRanks <= 4 ? 2 : 1;
}

// Every thread calls this. The first thread of warp w (w < kRanks, not this rank) waits until
// `flags[w]` reaches `target`: all peers are polled at once, and the barrier after the polls
// makes their acquires cover every thread's following accesses. Returns false when the kernel
// must stop (abort or timeout).
template <int kRanks>
__device__ inline bool wait_for_every_peer(std::uint32_t (&flags)[kMaxPeerRanks],
                                           std::uint32_t target, int rank, const PeerAbort& abort,
                                           bool* stop) {
  const unsigned warp = threadIdx.x / 32;
  if (threadIdx.x % 32 == 0 && warp < static_cast<unsigned>(kRanks) &&
      warp != static_cast<unsigned>(rank)) {
    std::uint32_t seen = 0;
    if (!wait_flag(&flags[warp], target, abort, &seen)) *stop = true;
  }
  __syncthreads();
  return !*stop;
}

// After a barrier that completed the CTA's stores: thread `peer` releases `count` into every other
// rank's flag `flag_of(peer)`.
template <int kRanks, typename FlagOf>
__device__ inline void publish_to_every_peer(int rank, std::uint32_t count, FlagOf flag_of) {
  const int peer = static_cast<int>(threadIdx.x);
  if (peer < kRanks && peer != rank) publish_flag(flag_of(peer), count);
}

// `gather(args, sources, range)` reduces this rank's piece `range` of its own chunk from `sources`
// (every rank's copy of it, in rank order) and stores the result where it goes: every rank's
// output (TwoshotAllGather), or whatever an epilogue makes of it (the training step's update).
template <typename T, typename Op, int kRanks, typename Gather>
__global__ void __launch_bounds__(kTwoshotThreads)
    twoshot_kernel(TwoshotRankArgs args, Gather gather) {
  const RingGeometry& g = args.geometry;
  const int part = blockIdx.x;
  const int rank = args.rank;
  const T* send = static_cast<const T*>(args.send);
  const T* own_staging = static_cast<const T*>(args.staging[rank]);
  TwoshotSignals* mine = args.signals[rank];

  __shared__ std::uint32_t base;  // slices this part completed before this launch
  __shared__ bool stop;
  if (threadIdx.x == 0) {
    stop = false;
    // Written by this row's CTA at the end of the previous launch; the kernel boundary orders it.
    base = mine->slices_done[part];
  }
  __syncthreads();

  for (int slice = 0; slice < g.slices; ++slice) {
    const int slot = slice % kTwoshotSlots;
    const std::uint32_t count = base + static_cast<std::uint32_t>(slice) + 1;
    // Scatter: the next rank's chunk first, so that at any moment each GPU receives from one
    // peer per part rather than all of them from the same one.
#pragma unroll
    for (int k = 1; k < kRanks; ++k) {
      const int owner = (rank + k) % kRanks;
      const ElementRange range = ring_piece(g, owner, slice, part);
      T* slot_out = static_cast<T*>(args.staging[owner]) +
                    twoshot_slot_offset(g, twoshot_source_index(rank, owner, kRanks), part, slot);
      move_piece<T, Op, false, false>({slot_out, nullptr, send + range.begin, nullptr},
                                      range.end - range.begin, false, kRanks, args.aligned,
                                      threadIdx.x, blockDim.x);
    }
    __syncthreads();  // every thread's stores are issued before their release
    publish_to_every_peer<kRanks>(
        rank, count, [&](int owner) { return &args.signals[owner]->arrived[part][rank]; });

    // Gather: this rank's chunk, once every peer's piece of it has arrived.
    if (!wait_for_every_peer<kRanks>(mine->arrived[part], count, rank, args.abort, &stop)) return;
    const ElementRange range = ring_piece(g, rank, slice, part);
    const T* sources[kRanks];
#pragma unroll
    for (int source = 0; source < kRanks; ++source) {
      sources[source] =
          source == rank
              ? send + range.begin
              : own_staging +
                    twoshot_slot_offset(g, twoshot_source_index(source, rank, kRanks), part, slot);
    }
    gather(args, sources, range);
    __syncthreads();  // every thread's loads of the slots are done and its stores issued
    publish_to_every_peer<kRanks>(
        rank, count, [&](int peer) { return &args.signals[peer]->gathered[part][rank]; });
  }

  // The caller may use recv once every owner's pieces have landed in it.
  if (!wait_for_every_peer<kRanks>(mine->gathered[part], base + g.slices, rank, args.abort,
                                   &stop)) {
    return;
  }
  if (threadIdx.x == 0) mine->slices_done[part] = base + g.slices;
}

// The plain all-reduce's gather: the result into every rank's output, the next rank's first.
template <typename T, typename Op, int kRanks>
struct TwoshotAllGather {
  __device__ void operator()(const TwoshotRankArgs& args, const T* const (&sources)[kRanks],
                             const ElementRange& range) const {
    T* outputs[kRanks];
#pragma unroll
    for (int k = 0; k < kRanks; ++k) {
      outputs[k] = static_cast<T*>(args.outputs[(args.rank + k) % kRanks]) + range.begin;
    }
    reduce_in_rank_order<T, Op, kRanks, kRanks, twoshot_reduce_unroll<kRanks>()>(
        outputs, sources, range.end - range.begin, args.reduction == Reduction::avg ? kRanks : 0,
        args.aligned, threadIdx.x, blockDim.x);
  }
};

}  // namespace collbench::kernels
