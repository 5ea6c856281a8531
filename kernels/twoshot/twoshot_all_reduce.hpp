// Host API of the two-shot all-reduce (twoshot_all_reduce.cu): each rank owns one chunk; every
// rank stores its input's piece of each chunk into the owner's staging (the reduce-scatter shot),
// and the owner reduces the piece in rank order and stores the result into every rank's output
// (the all-gather shot). Every rank talks to every peer at once, and a piece crosses NVLink twice
// whatever the rank count, where the ring passes it through 2(n-1) steps. Design: README.md,
// "twoshot".
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "host_device.hpp"
#include "peer_flags.cuh"
#include "ring/ring_schedule.hpp"
#include "test_values.cuh"

namespace collbench::kernels {

constexpr int kTwoshotThreads = 512;   // per CTA
constexpr int kTwoshotMaxParts = 128;  // CTAs per launch; the flag arrays below have this many rows
// Staging slots per (source, part): slice s fills slot s % 2. A source may refill a slot once the
// owner has read it, and the schedule guarantees that without a flag (README.md, "twoshot").
constexpr int kTwoshotSlots = 2;

// One rank's flags, in its own device memory, zeroed once before the first launch (and after an
// aborted one). Row p belongs to CTA p on every rank: piece p of every chunk only ever meets part
// index p. Counts run on across launches like the ring's, from the device (graph replays).
struct TwoshotSignals {
  // [part][source rank]: slices of the source's input that its CTA p has stored into our staging.
  alignas(128) std::uint32_t arrived[kTwoshotMaxParts][kMaxPeerRanks];
  // [part][owner rank]: slices of the owner's chunk that its CTA p has stored into our output.
  alignas(128) std::uint32_t gathered[kTwoshotMaxParts][kMaxPeerRanks];
  // Own: slices CTA p has completed over every launch so far (the same on every rank).
  alignas(128) std::uint32_t slices_done[kTwoshotMaxParts];
};

// One rank's kernel. Tables hold every rank's memory as this rank addresses it (peer access in one
// process, CUDA IPC mappings across processes); entry `rank` is this rank's own.
struct TwoshotRankArgs {
  const void* send;
  void* recv;
  void* outputs[kMaxPeerRanks];            // every rank's recv
  void* staging[kMaxPeerRanks];            // every rank's staging (twoshot_staging_bytes)
  TwoshotSignals* signals[kMaxPeerRanks];  // every rank's flags
  PeerAbort abort;
  RingGeometry geometry;  // chunk c is rank c's; geometry.parts CTAs are launched
  int rank;
  ElementType type;
  Reduction reduction;  // not none
  bool aligned;         // every send/recv pointer of every rank is 16-byte aligned
};

// Where source `source`'s pieces for owner `owner` sit in the owner's staging: 0 .. nranks-2
// (the owner stages nothing of its own).
CB_HOST_DEVICE inline int twoshot_source_index(int source, int owner, int nranks) {
  return (source - owner - 1 + nranks) % nranks;
}
// Where slot `slot` of part `part` for source index `source_index` starts in an owner's staging,
// in elements. A slot holds ring_max_piece_lines whole lines.
CB_HOST_DEVICE inline std::uint64_t twoshot_slot_offset(const RingGeometry& g, int source_index,
                                                        int part, int slot) {
  const std::uint64_t slot_index =
      (static_cast<std::uint64_t>(source_index) * g.parts + part) * kTwoshotSlots + slot;
  return slot_index * ring_max_piece_lines(g) * g.line_elements;
}
// Bytes of one rank's staging (at least one line, so it is never empty).
CB_HOST_DEVICE inline std::uint64_t twoshot_staging_bytes(const RingGeometry& g) {
  const std::uint64_t lines =
      static_cast<std::uint64_t>(g.nranks - 1) * g.parts * kTwoshotSlots * ring_max_piece_lines(g);
  return (lines > 0 ? lines : 1) * 16;
}

// Throws std::invalid_argument for arguments the kernel cannot run (parts outside
// 1..kTwoshotMaxParts, ranks outside 2..kMaxPeerRanks, `line_elements` not the geometry's line,
// a missing peer pointer).
void check_twoshot_launch(const TwoshotRankArgs& args, int line_elements);

// Enqueues one all-reduce on `stream`; throws what check_twoshot_launch throws.
void launch_twoshot_all_reduce(const TwoshotRankArgs& args, cudaStream_t stream);

}  // namespace collbench::kernels
