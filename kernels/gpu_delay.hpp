// A delay that a stream keeps on the GPU: one thread spinning on %globaltimer, so that a replayed
// gap between two ops of a stream holds that stream alone while the others run on (a host sleep
// would hold every stream the host issues to).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace collbench::kernels {

// Holds `stream` for `delay_ns` nanoseconds (the timer ticks about every microsecond). Returns the
// launch's error (the caller checks it: this library names no rank).
cudaError_t launch_gpu_delay(std::uint64_t delay_ns, cudaStream_t stream);
// Loads the delay's kernel on the current device now: a first launch behind a held stream would
// load its module, which waits for the device to be idle (see preload_wait_for_gate).
cudaError_t preload_gpu_delay();

}  // namespace collbench::kernels
