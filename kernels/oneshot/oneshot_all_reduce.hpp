// Host API of the one-shot all-reduce for small messages (oneshot_staged.cu, oneshot_ll.cu):
// every rank obtains every rank's input and reduces locally, in one kernel. Design: README.md,
// "oneshot".
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "peer_flags.cuh"
#include "test_values.cuh"

namespace collbench::kernels {

constexpr int kOneshotMaxBlocks = 32;  // the flag arrays below have this many slots
constexpr int kOneshotMaxRanks = kMaxPeerRanks;
// Up to this many bytes the low-latency kernel pushes data and flag in one 8-byte store; above,
// the staged kernel copies to scratch, meets every peer at a flag barrier, and pulls.
constexpr std::uint64_t kOneshotLowLatencyMaxBytes = 64 << 10;
// The low-latency inbox: [2 launch parities][source rank][8-byte unit] pairs of 8-byte words.
constexpr std::uint64_t kOneshotInboxUnits = kOneshotLowLatencyMaxBytes / 8;
constexpr std::uint64_t kOneshotInboxBytes = 2ull * kOneshotMaxRanks * kOneshotInboxUnits * 16;

// One rank's flags, in its own device memory, zeroed once before the first launch.
struct OneshotSignals {
  // Staged kernel, [block][source rank]: the launch count that rank's block b reached (its
  // scratch copy of portion b is complete). Written by the source rank, read by this one.
  alignas(128) std::uint32_t arrived[kOneshotMaxBlocks][kOneshotMaxRanks];
  // Own: launches completed per block, by each kernel. Every rank launches alike, so these agree
  // across ranks and the next launch's count comes from the device, never from the host (graph
  // replays).
  alignas(128) std::uint32_t staged_launches[kOneshotMaxBlocks];
  alignas(128) std::uint32_t low_latency_launches[kOneshotMaxBlocks];
};

// One rank's kernel. Tables hold every rank's memory as this rank addresses it.
struct OneshotRankArgs {
  const void* send;
  void* recv;
  OneshotSignals* signals[kOneshotMaxRanks];
  // Staged kernel: each rank's scratch of two halves of scratch_half_bytes, used by alternate
  // launches, so a rank may start launch e+1 while peers still read its launch-e copy.
  void* scratch[kOneshotMaxRanks];
  std::uint64_t scratch_half_bytes;
  // Low-latency kernel: each rank's inbox of kOneshotInboxBytes, zeroed when a case begins.
  void* inbox[kOneshotMaxRanks];
  std::uint64_t count;  // elements
  PeerAbort abort;
  int rank;
  int nranks;  // 2 .. kOneshotMaxRanks
  ElementType type;
  Reduction reduction;  // not none
  bool aligned;         // send and recv are 16-byte aligned
  bool low_latency;  // count * element size <= kOneshotLowLatencyMaxBytes: the low-latency kernel
  // Launched directly with programmatic stream serialization (programmatic_launch.cuh): the next
  // launch's blocks are scheduled while this one runs, and wait for it to end before touching
  // memory. Inside a stream capture the launch is always programmatic.
  bool programmatic = false;
};

// Enqueues one all-reduce on `stream`. Throws std::invalid_argument for arguments out of range; a
// failed launch is left for cudaGetLastError, as with <<<>>>.
void launch_oneshot_all_reduce(const OneshotRankArgs& args, cudaStream_t stream);

namespace detail {
void launch_oneshot_staged(const OneshotRankArgs& args, cudaStream_t stream);
void launch_oneshot_low_latency(const OneshotRankArgs& args, cudaStream_t stream);
}  // namespace detail

}  // namespace collbench::kernels
