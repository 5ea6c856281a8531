// Host API of the hand-built ring all-reduce (ring_all_reduce.cu): the flags every rank owns and
// the arguments of one rank's kernel, for both protocols (push: remote stores into the next
// rank's staging slots and output; pull: remote loads from the previous rank's buffers).
// Design: README.md, "ring".
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "peer_flags.cuh"
#include "ring/ring_schedule.hpp"
#include "test_values.cuh"

namespace collbench::kernels {

constexpr int kRingThreads = 512;   // per CTA
constexpr int kRingMaxParts = 128;  // CTAs per launch; the flag arrays below have this many slots

// One rank's flags, in its own device memory, zeroed once before the first launch (and after an
// aborted one). Slot p belongs to CTA p on every rank (ring_schedule.hpp: a piece only ever meets
// the same part index). Each array starts on its own 128-byte line so writers of different arrays
// never share one. Own counts are read at a launch's start and written at its end: every rank
// makes the same launches with the same geometries, so they agree with the neighbours' and each
// launch's counts continue on the device, never from host-passed epochs (graph replays).
struct RingSignals {
  // pull. Written by the previous rank's CTA p: its running publish count (ring_schedule.hpp).
  alignas(128) std::uint32_t ready[kRingMaxParts];
  // pull. Written by the next rank's CTA p: launches after which it will not read our buffers.
  alignas(128) std::uint32_t done[kRingMaxParts];
  // pull, own: publishes so far, launches so far.
  alignas(128) std::uint32_t published[kRingMaxParts];
  alignas(128) std::uint32_t launches[kRingMaxParts];
  // push. Written by the previous rank's CTA p: messages it has stored here (staging or output).
  alignas(128) std::uint32_t arrived[kRingMaxParts];
  // push. Written by the next rank's CTA p: our staging messages it has consumed (flow control).
  alignas(128) std::uint32_t freed[kRingMaxParts];
  // push, own: messages received (= sent, on every rank) and staging messages sent, so far.
  alignas(128) std::uint32_t received[kRingMaxParts];
  alignas(128) std::uint32_t staged[kRingMaxParts];
};

// One rank's kernel. Peer pointers are the other ranks' memory as this rank's device addresses
// it (peer access in one process; CUDA IPC mappings across processes).
struct RingRankArgs {
  RingProtocol protocol;
  const void* send;
  void* recv;
  // pull: rank - 1's buffers, which this rank loads from.
  const void* previous_send;
  const void* previous_recv;
  // push: rank + 1's output and staging, which this rank stores into, and its own staging, which
  // rank - 1 stores into (layout: ring_push_slot_offset, ring_push_staging_bytes).
  void* next_recv;
  void* staging;
  void* next_staging;
  int slots;                      // push: staging slots per part (ring_push_slots_valid)
  RingSignals* signals;           // this rank's
  RingSignals* next_signals;      // rank + 1's: pull publishes ready, push publishes arrived
  RingSignals* previous_signals;  // rank - 1's: pull says done, push says freed
  PeerAbort abort;
  RingGeometry geometry;  // geometry.parts CTAs are launched
  int rank;
  ElementType type;
  Reduction reduction;  // not none
  bool aligned;         // every send/recv pointer of every rank is 16-byte aligned
};

// Throws std::invalid_argument for a geometry the kernel cannot run (parts outside
// 1..kRingMaxParts, `line_elements` not the geometry's line (16 bytes of the element type); push:
// slots not a power of two in 2..kRingMaxSlots, or a missing peer/staging pointer).
void check_ring_launch(const RingRankArgs& args, int line_elements);

// Enqueues one all-reduce on `stream`; throws what check_ring_launch throws.
void launch_ring_all_reduce(const RingRankArgs& args, cudaStream_t stream);

}  // namespace collbench::kernels
