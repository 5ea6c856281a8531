// One thread: counts, not flags, so that nothing needs resetting between steps (the same graph
// replays) and a peer one barrier ahead still satisfies the wait.
#include "lockstep_barrier.hpp"

namespace collbench::kernels::training {
namespace {

__global__ void lockstep_barrier_kernel(LockstepBarrier barrier) {
  const std::uint32_t entered = barrier.own[0] + 1;
  barrier.own[0] = entered;
  for (int peer = 0; peer < barrier.nranks; ++peer) {
    if (peer != barrier.rank) publish_flag(barrier.peer_slot[peer], entered);
  }
  for (int peer = 0; peer < barrier.nranks; ++peer) {
    if (peer == barrier.rank) continue;
    std::uint32_t seen;
    if (!wait_flag(&barrier.own[1 + peer], entered, barrier.abort, &seen)) return;
  }
}

}  // namespace

void launch_lockstep_barrier(const LockstepBarrier& barrier, cudaStream_t stream) {
  lockstep_barrier_kernel<<<1, 1, 0, stream>>>(barrier);
}

}  // namespace collbench::kernels::training
