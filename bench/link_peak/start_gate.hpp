// A start gate for measurements spanning several GPUs: every stream first runs a kernel that
// waits for one host flag, so all copies start together once everything is enqueued, and the
// host's enqueue time never lands inside a timed interval.
#pragma once

#include <cuda_runtime.h>

#include <memory>

namespace collbench::link_peak {

class StartGate {
 public:
  // A gate held closed; its two words live in mapped, portable pinned memory (any GPU reads it).
  StartGate();
  // Opens the gate first, so that no kernel is left spinning on freed memory.
  ~StartGate();
  StartGate(const StartGate&) = delete;
  StartGate& operator=(const StartGate&) = delete;

  // Enqueues the wait on `stream` (of the current device): the stream's later work runs only
  // after open().
  void hold(cudaStream_t stream);
  // Lets every held stream go.
  void open();
  // Closes the gate again for the next round. Call only once all held streams passed it
  // (their later work has completed). Throws GpuError when a wait gave up (timeout).
  void close();

 private:
  struct PinnedFree {
    void operator()(int* words) const;
  };
  std::unique_ptr<int, PinnedFree> words_;  // [0] release flag, [1] timed-out flag
};

}  // namespace collbench::link_peak
