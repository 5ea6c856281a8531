// Host API of the hand-built ring all-reduce (ring_all_reduce.cu): the flags every rank owns and
// the arguments of one rank's kernel. Design: README.md, "ring".
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "peer_flags.cuh"
#include "ring_schedule.hpp"
#include "test_values.cuh"

namespace collbench::kernels {

constexpr int kRingThreads = 512;  // per CTA
constexpr int kRingMaxParts = 64;  // CTAs per launch; the flag arrays below have this many slots

// One rank's flags, in its own device memory, zeroed once before the first launch. Slot p
// belongs to CTA p on every rank (ring_schedule.hpp: a piece only ever meets the same part
// index). Each array starts on its own 128-byte line so writers of different arrays never share
// one.
struct RingSignals {
  // Written by the previous rank's CTA p: its running publish count (ring_schedule.hpp).
  alignas(128) std::uint32_t ready[kRingMaxParts];
  // Written by the next rank's CTA p: launches after which it will not read our buffers again.
  alignas(128) std::uint32_t done[kRingMaxParts];
  // Own, read at a launch's start and written at its end: publishes so far, launches so far.
  // Every rank makes the same launches with the same geometry, so these agree across ranks and
  // each launch's counts continue on the device, never from host-passed epochs (graph replays).
  alignas(128) std::uint32_t published[kRingMaxParts];
  alignas(128) std::uint32_t launches[kRingMaxParts];
};

// One rank's kernel. Peer pointers are the other ranks' memory as this rank's device addresses
// it (peer access in one process; CUDA IPC mappings across processes).
struct RingRankArgs {
  const void* send;
  void* recv;
  const void* previous_send;      // rank - 1's input
  const void* previous_recv;      // rank - 1's output
  RingSignals* signals;           // this rank's
  RingSignals* next_signals;      // rank + 1's: where this rank publishes
  RingSignals* previous_signals;  // rank - 1's: where this rank says it is done reading
  PeerAbort abort;
  RingGeometry geometry;  // geometry.parts CTAs are launched
  int rank;
  ElementType type;
  Reduction reduction;  // not none
  bool aligned;         // every send/recv pointer of every rank is 16-byte aligned
};

// Enqueues one all-reduce on `stream`. Throws std::invalid_argument for a geometry the kernel
// cannot run (parts outside 1..kRingMaxParts, line size not 16 bytes of the type).
void launch_ring_all_reduce(const RingRankArgs& args, cudaStream_t stream);

}  // namespace collbench::kernels
