// launch_gpu_delay (gpu_delay.hpp): it holds its stream for the time asked, and only its stream.
#include <gtest/gtest.h>

#include "core/errors.hpp"
#include "gpu_delay.hpp"
#include "gpu_test_support.hpp"
#include "runtime/cuda_resources.hpp"

namespace collbench::testing {
namespace {

constexpr std::uint64_t kDelayNs = 2'000'000;  // 2 ms: far above launch and timer granularity

TEST(GpuDelay, HoldsItsStreamForTheTimeAsked) {
  SKIP_WITHOUT_GPUS(1);
  ScopedDevice on(0, 0);
  CB_CUDA_CHECK(kernels::preload_gpu_delay());
  Stream stream(0);
  Event start(0), stop(0);
  CB_CUDA_CHECK(cudaEventRecord(start.get(), stream.get()));
  CB_CUDA_CHECK(kernels::launch_gpu_delay(kDelayNs, stream.get()));
  CB_CUDA_CHECK(cudaEventRecord(stop.get(), stream.get()));
  CB_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  const double held_ms = elapsed_ms(start, stop);
  // The delay reads %globaltimer, which ticks every microsecond or so: its first reading may lag
  // the kernel's start by up to a tick, so the events may see one tick less than asked.
  EXPECT_GE(held_ms, 1.99);
  EXPECT_LT(held_ms, 10.0);
}

TEST(GpuDelay, LeavesTheOtherStreamsRunning) {
  SKIP_WITHOUT_GPUS(1);
  ScopedDevice on(0, 0);
  Stream held(0), free_stream(0);
  Event origin(0), held_done(0), free_done(0);
  CB_CUDA_CHECK(cudaEventRecord(origin.get(), held.get()));
  CB_CUDA_CHECK(cudaStreamWaitEvent(free_stream.get(), origin.get(), 0));
  CB_CUDA_CHECK(kernels::launch_gpu_delay(kDelayNs, held.get()));
  CB_CUDA_CHECK(cudaEventRecord(held_done.get(), held.get()));
  CB_CUDA_CHECK(kernels::launch_gpu_delay(kDelayNs / 20, free_stream.get()));
  CB_CUDA_CHECK(cudaEventRecord(free_done.get(), free_stream.get()));
  CB_CUDA_CHECK(cudaDeviceSynchronize());
  // The short delay on the other stream ended long before the long one.
  EXPECT_LT(elapsed_ms(origin, free_done), 1.0);
  EXPECT_GE(elapsed_ms(origin, held_done), 1.99);  // a timer tick short at most, as above
}

}  // namespace
}  // namespace collbench::testing
