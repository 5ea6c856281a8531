// Keeps a stream's queue shallow while a loop launches work on it without end: after every batch
// it records an event and waits for the previous batch's, so at most two batches are queued and a
// stop takes effect within one batch's time.
#pragma once

#include <cuda_runtime.h>

#include "cuda_owners.hpp"

namespace collbench::contend {

class LaunchPacer {
 public:
  LaunchPacer(int gpu, cudaStream_t stream, int batch);
  // Call after each launch on the stream; blocks (without spinning) once a batch is complete
  // until the batch before it has finished.
  void launched();
  // Waits until everything launched so far has finished.
  void drain();

 private:
  Event& slot(int index) { return index == 0 ? even_ : odd_; }

  int gpu_;
  cudaStream_t stream_;
  int batch_;
  long launches_ = 0;
  Event even_;
  Event odd_;
  bool pending_[2] = {false, false};
  int next_ = 0;
};

}  // namespace collbench::contend
