// Host API of ring_sendrecv's reduction kernel (ring_sendrecv_reduce.cu): after NCCL has
// received a chunk's partial result, combine it with this rank's input.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "test_values.cuh"

namespace collbench::kernels {

struct ReduceIntoArgs {
  void* out;             // out[i] = op(incoming[i], own[i]) for i in [0, count)
  const void* incoming;  // the received partial result
  const void* own;       // this rank's input
  std::uint64_t count;
  ElementType type;
  Reduction reduction;  // not none
  bool average_now;     // avg's last step: divide by nranks
  int nranks;
};

// Enqueues the reduction on `stream`; nothing for count 0.
void launch_reduce_into(const ReduceIntoArgs& args, cudaStream_t stream);

// Loads, on the current device, the kernel launch_reduce_into runs for this type and reduction.
// With lazy module loading a kernel's first launch may wait for the whole device; done before
// the device runs an NCCL kernel that waits on a peer, that wait cannot hang the host thread.
// Returns cudaFuncGetAttributes' status.
cudaError_t preload_reduce_into(ElementType type, Reduction reduction);

}  // namespace collbench::kernels
