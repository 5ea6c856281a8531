// A kernel that holds every SM of a GPU for a set time: as many blocks as fit at once, each
// spinning on the GPU's global timer.
#pragma once

#include <cuda_runtime.h>

namespace collbench::contend {

struct SpinShape {
  int sms = 0;
  int blocks_per_sm = 0;  // resident at once (occupancy)
  int threads_per_block = 0;
  int blocks() const { return sms * blocks_per_sm; }
};

// The launch shape that fills every SM of `gpu` (the current device).
SpinShape spin_shape(int gpu);

// Launches one spin of about spin_ns nanoseconds on `stream`; throws LoadError when refused.
void launch_spin(const SpinShape& shape, cudaStream_t stream, unsigned long long spin_ns, int gpu);

}  // namespace collbench::contend
