// Holds a share of one GPU's SMs for as long as it lives (kernels/sm_hog_kernel.hpp): the slow-GPU
// fault of collbench and collbench_diagnose.
#pragma once

#include <memory>

#include "runtime/cuda_resources.hpp"

namespace collbench {

class SmHog {
 public:
  // Takes `fraction` (0 to 1) of `device`'s SMs, at least one, from a stream of its own; the
  // blocks are resident before the constructor returns.
  SmHog(int device, double fraction);
  // Releases the SMs and waits for the kernel to end.
  ~SmHog();
  SmHog(const SmHog&) = delete;
  SmHog& operator=(const SmHog&) = delete;

  int blocks() const { return blocks_; }

 private:
  struct HostFree {
    void operator()(int* pointer) const { cudaFreeHost(pointer); }
  };
  int device_;
  int blocks_ = 0;
  std::unique_ptr<int, HostFree> stop_;  // host-mapped: the kernel polls it
  Stream stream_;
};

}  // namespace collbench
