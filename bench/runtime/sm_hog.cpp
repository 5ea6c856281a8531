// The SM hog's lifetime.
#include "runtime/sm_hog.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "sm_hog_kernel.hpp"

namespace collbench {

SmHog::SmHog(int device, double fraction) : device_(device) {
  ScopedDevice on(device);
  int sms = 0;
  CB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  blocks_ = std::clamp(static_cast<int>(std::lround(fraction * sms)), 1, sms);
  int* stop = nullptr;
  CB_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&stop), sizeof(int),
                              cudaHostAllocMapped | cudaHostAllocPortable));
  stop_.reset(stop);
  *stop = 0;
  stream_ = Stream(device);
  int* stop_on_device = nullptr;
  CB_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&stop_on_device), stop, 0));
  CB_CUDA_CHECK(kernels::launch_sm_hog(blocks_, stop_on_device, stream_.get()));
  // Let the blocks become resident before the work it is meant to slow is launched.
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
}

SmHog::~SmHog() {
  if (!stream_) return;  // the constructor failed before the launch
  *reinterpret_cast<volatile int*>(stop_.get()) = 1;
  ScopedDevice on(device_);
  cudaStreamSynchronize(stream_.get());  // a destructor reports nothing; stream and flag go next
}

}  // namespace collbench
