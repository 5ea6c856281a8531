// The device side of the start gate (bench/runtime/start_gate.hpp): a one-thread kernel that holds
// a stream until every rank of a round has enqueued its work, so that timed work on several GPUs
// starts together and no host's enqueue time lands inside a timed interval.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace collbench::kernels {

// The words of one gate, in host memory that every GPU of the host reads: pinned and mapped when
// one process drives every rank, a shared-memory segment mapped by every process of the host
// otherwise. `arrived` only grows: round k opens once it reaches that round's ticket, so no word
// is ever reset while a process might still read it.
struct alignas(64) StartGateWords {
  std::uint64_t arrived;  // ranks that have enqueued their work, over every round so far
  int abort;              // non-zero: every wait leaves at once (a failed case, teardown)
  int timed_out;          // set by a wait that gave up
};

// Holds `stream` until words->arrived reaches `ticket`, either abort word is set (the gate's own,
// shared by every process using it, or `process_abort`, this process's alone: its teardown must
// not release the others), or `timeout_ns` passed (then timed_out is set). Both pointers are the
// device's views. Returns the launch's error (the caller checks it: this library names no rank).
cudaError_t launch_wait_for_gate(StartGateWords* words, int* process_abort, std::uint64_t ticket,
                                 std::uint64_t timeout_ns, cudaStream_t stream);
// Loads the wait's kernel on the current device now: CUDA loads a module on its first launch, and
// loading waits for the device to be idle, which a stream held by a gate (or an SM hog) never is.
cudaError_t preload_wait_for_gate();

}  // namespace collbench::kernels
