// One thread: counts, not flags, so that nothing needs resetting between steps (the same graph
// replays) and a peer one barrier ahead still satisfies the wait. The barrier orders time, not
// data, so its stores and loads are relaxed: a release would fence behind every write the GPU
// has in flight over NVLink (the copy engines' included), which cost 6-15 us a barrier on 4xH200.
#include <cuda/atomic>

#include "lockstep_barrier.hpp"

namespace collbench::kernels::training {
namespace {

using SystemCount = cuda::atomic_ref<std::uint32_t, cuda::thread_scope_system>;

__global__ void lockstep_barrier_kernel(LockstepBarrier barrier) {
  const std::uint32_t entered = barrier.own[0] + 1;
  barrier.own[0] = entered;
  for (int peer = 0; peer < barrier.nranks; ++peer) {
    if (peer != barrier.rank)
      SystemCount(*barrier.peer_slot[peer]).store(entered, cuda::memory_order_relaxed);
  }
  const std::uint64_t started_ns = global_timer_ns();
  for (unsigned polls = 1;; ++polls) {
    bool all = true;
    for (int peer = 0; peer < barrier.nranks; ++peer) {
      if (peer == barrier.rank) continue;
      const std::uint32_t seen =
          SystemCount(barrier.own[1 + peer]).load(cuda::memory_order_relaxed);
      all = all && count_reached(seen, entered);
    }
    if (all) return;
    if ((polls & 1023u) == 0 && must_stop_waiting(barrier.abort, started_ns)) return;
  }
}

}  // namespace

void launch_lockstep_barrier(const LockstepBarrier& barrier, cudaStream_t stream) {
  lockstep_barrier_kernel<<<1, 1, 0, stream>>>(barrier);
}

}  // namespace collbench::kernels::training
