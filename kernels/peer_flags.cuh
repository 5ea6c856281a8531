// The flag protocol of the hand-built collectives (ring, oneshot): counts published with release
// and read with acquire at system scope, and waits that give up when the host asks them to (or
// when a peer stays silent too long), so no kernel waits forever on a dead peer.
#pragma once

#include <cstdint>

#include "host_device.hpp"

#if defined(__CUDACC__)
#include <cuda/atomic>
#endif

namespace collbench::kernels {

// Ranks a peer-to-peer kernel (ring, oneshot) handles at most.
constexpr int kMaxPeerRanks = 8;

// Values of the abort word (host-mapped memory, 0 while all is well).
constexpr int kAbortRequested = 1;         // the host asked every waiting kernel to stop
constexpr int kAbortTimedOutBase = 0x100;  // + rank: that rank gave up waiting on a peer

// How a waiting kernel learns it must stop.
struct PeerAbort {
  int* word;                 // host-mapped pinned memory, readable by every GPU
  std::uint64_t timeout_ns;  // give up after waiting this long on one flag; 0: never
  int rank;                  // written into the word on a timeout, so the host can say who gave up
};

// Wrap-safe "count has reached target" for the running 32-bit counts the flags carry.
CB_HOST_DEVICE inline bool count_reached(std::uint32_t count, std::uint32_t target) {
  return static_cast<std::int32_t>(count - target) >= 0;
}

#if defined(__CUDACC__)

// Makes every write this thread (and, through a preceding __syncthreads, its CTA) did before
// visible to whoever reads `value` from `flag` with read_flag, on any GPU.
__device__ inline void publish_flag(std::uint32_t* flag, std::uint32_t value) {
  cuda::atomic_ref<std::uint32_t, cuda::thread_scope_system>(*flag).store(
      value, cuda::memory_order_release);
}

__device__ inline std::uint32_t read_flag(std::uint32_t* flag) {
  return cuda::atomic_ref<std::uint32_t, cuda::thread_scope_system>(*flag).load(
      cuda::memory_order_acquire);
}

__device__ inline std::uint64_t global_timer_ns() {
  std::uint64_t now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

__device__ inline int read_abort_word(int* word) {
  return cuda::atomic_ref<int, cuda::thread_scope_system>(*word).load(cuda::memory_order_relaxed);
}

// What a spinning wait checks every 1024 polls: true when the host asked to stop, or when the
// wait that began at `started_ns` has outlasted the timeout (then recorded in the abort word, which
// tells the host and every other waiting CTA of this process to stop).
__device__ inline bool must_stop_waiting(const PeerAbort& abort, std::uint64_t started_ns) {
  if (read_abort_word(abort.word) != 0) return true;
  if (abort.timeout_ns != 0 && global_timer_ns() - started_ns > abort.timeout_ns) {
    cuda::atomic_ref<int, cuda::thread_scope_system>(*abort.word)
        .store(kAbortTimedOutBase + abort.rank, cuda::memory_order_relaxed);
    return true;
  }
  return false;
}

// Spins until the count at `flag` reaches `target` (wrap-safe); returns the count seen, in
// *seen, and true, or false when the kernel must stop. The abort word lives in host memory (a
// PCIe round trip), so it is read only every 1024 polls: a wait that ends quickly never pays it.
__device__ __forceinline__ bool wait_flag(std::uint32_t* flag, std::uint32_t target,
                                          const PeerAbort& abort, std::uint32_t* seen) {
  std::uint32_t value = read_flag(flag);
  if (count_reached(value, target)) {
    *seen = value;
    return true;
  }
  const std::uint64_t started_ns = global_timer_ns();
  for (unsigned polls = 1;; ++polls) {
    value = read_flag(flag);
    if (count_reached(value, target)) {
      *seen = value;
      return true;
    }
    if ((polls & 1023u) == 0 && must_stop_waiting(abort, started_ns)) return false;
  }
}

#endif  // __CUDACC__

}  // namespace collbench::kernels
