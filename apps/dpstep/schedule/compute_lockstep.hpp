// Holds every rank of a data-parallel step in step on its compute stream
// (kernels/training/lockstep_barrier.hpp), through the peer mappings the hand-built collectives
// use: within one process or across processes alike.
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "algorithms/handbuilt_peer_group.hpp"
#include "training/lockstep_barrier.hpp"

namespace collbench::dp {

class ComputeLockstep {
 public:
  // `ranks`: this process's ranks of the step's communicator (of `nranks` in all), each with the
  // stream its barriers run on. Throws UnsupportedConfig when the GPUs cannot reach one another's
  // memory or there are more ranks than a peer kernel handles.
  ComputeLockstep(const std::vector<RankContext>& ranks, int nranks, double timeout_s);

  // Enqueues the next barrier of local rank `local` (index into `ranks`) on `stream`.
  void enqueue(int local, cudaStream_t stream) const;
  // Makes every waiting barrier return (after a failure elsewhere).
  void abort() noexcept { peers_.request_abort(); }
  // Throws GpuError when a barrier gave up waiting on a peer.
  void check_health() const { peers_.check_health("lockstep barrier"); }
  // Closes the other processes' mappings (before the barrier after which buffers are freed).
  void release() noexcept { peers_.release(); }

 private:
  PeerGroup peers_;
  std::vector<DeviceBuffer> counts_;                          // per local rank
  std::vector<kernels::training::LockstepBarrier> barriers_;  // per local rank
};

}  // namespace collbench::dp
