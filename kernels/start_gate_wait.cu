// The start gate's wait: one thread polling host memory with system-scope acquire loads.
#include <cuda/atomic>

#include "peer_flags.cuh"
#include "start_gate_wait.hpp"

namespace collbench::kernels {
namespace {

__global__ void wait_for_gate_kernel(StartGateWords* words, int* process_abort,
                                     std::uint64_t ticket, std::uint64_t timeout_ns) {
  // The hosts' increments must be seen, and no later work may start before: acquire, system scope.
  cuda::atomic_ref<std::uint64_t, cuda::thread_scope_system> arrived(words->arrived);
  const std::uint64_t started_ns = global_timer_ns();
  while (arrived.load(cuda::memory_order_acquire) < ticket) {
    if (read_abort_word(&words->abort) != 0 || read_abort_word(process_abort) != 0) return;
    if (global_timer_ns() - started_ns > timeout_ns) {
      cuda::atomic_ref<int, cuda::thread_scope_system>(words->timed_out)
          .store(1, cuda::memory_order_relaxed);
      return;
    }
    // Short: the gate opens within about a microsecond of the last host's arrival.
    __nanosleep(100);
  }
}

}  // namespace

cudaError_t launch_wait_for_gate(StartGateWords* words, int* process_abort, std::uint64_t ticket,
                                 std::uint64_t timeout_ns, cudaStream_t stream) {
  wait_for_gate_kernel<<<1, 1, 0, stream>>>(words, process_abort, ticket, timeout_ns);
  return cudaGetLastError();
}

cudaError_t preload_wait_for_gate() {
  cudaFuncAttributes attributes{};
  return cudaFuncGetAttributes(&attributes, wait_for_gate_kernel);
}

}  // namespace collbench::kernels
