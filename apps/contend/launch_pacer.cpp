// Two events in turn mark the ends of batches; waiting on the older one bounds the queue.
#include "launch_pacer.hpp"

#include "cuda_check.hpp"

namespace collbench::contend {

LaunchPacer::LaunchPacer(int gpu, cudaStream_t stream, int batch)
    : gpu_(gpu), stream_(stream), batch_(batch), even_(gpu), odd_(gpu) {}

void LaunchPacer::launched() {
  if (++launches_ % batch_ != 0) return;
  CONTEND_CUDA(cudaEventRecord(slot(next_).get(), stream_), gpu_);
  pending_[next_] = true;
  const int previous = 1 - next_;
  if (pending_[previous]) {
    CONTEND_CUDA(cudaEventSynchronize(slot(previous).get()), gpu_);
    pending_[previous] = false;
  }
  next_ = previous;
}

void LaunchPacer::drain() {
  CONTEND_CUDA(cudaEventRecord(slot(next_).get(), stream_), gpu_);
  CONTEND_CUDA(cudaEventSynchronize(slot(next_).get()), gpu_);
  pending_[0] = pending_[1] = false;
}

}  // namespace collbench::contend
