// Host API of the copy-engine all-reduce's reduction (reduce_sources.cu): once the copy engines
// have gathered every rank's piece of a chunk into this GPU's memory, one kernel combines them.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "peer_flags.cuh"
#include "test_values.cuh"

namespace collbench::kernels {

struct ReduceSourcesArgs {
  // out[i] = op(sources[0][i], ..., sources[nranks-1][i]), all in this GPU's memory, combined in
  // source order in the accumulator type and rounded once (avg: the sum divided by nranks).
  const void* sources[kMaxPeerRanks];
  void* out;  // may be one of the sources (in place)
  std::uint64_t count;
  int nranks;  // 2 .. kMaxPeerRanks
  // avg divides by this many ranks (0: nranks); the ring averages its last partial over them all.
  int average_over = 0;
  ElementType type;
  Reduction reduction;  // not none
  // Blocks of 512 threads at most (0: kReduceSourcesMaxBlocks): fewer leave room on the SMs for a
  // kernel that runs beside the reduction (the training step's backward).
  int max_blocks = 0;
};

// Enough 512-thread blocks to keep HBM busy.
constexpr int kReduceSourcesMaxBlocks = 256;

// Enqueues the reduction on `stream`; nothing for count 0. Throws std::invalid_argument for a
// rank count out of range.
void launch_reduce_sources(const ReduceSourcesArgs& args, cudaStream_t stream);

// Loads, on the current device, the kernel launch_reduce_sources would run for this type,
// reduction and rank count. With lazy module loading a kernel's first launch may wait for the
// whole device; done before any stream of the device waits on a peer, that wait cannot deadlock.
// Returns cudaFuncGetAttributes' status.
cudaError_t preload_reduce_sources(ElementType type, Reduction reduction, int nranks);

}  // namespace collbench::kernels
