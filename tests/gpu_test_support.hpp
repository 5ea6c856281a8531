// Shared by the GPU test suites: skip (visibly, with the reason) when too few GPUs are present.
#pragma once

#include <gtest/gtest.h>

#include "measure/runner.hpp"
#include "runtime/cuda_resources.hpp"

namespace collbench {
// The most of 2, 4 and 8 GPUs that are visible (2 when fewer): where a test runs at one rank
// count, it takes the largest the machine has.
inline int largest_doubling_gpu_count() {
  const int visible = visible_gpu_count();
  return visible >= 8 ? 8 : visible >= 4 ? 4 : 2;
}
}  // namespace collbench

// In a test body: skips the test unless at least `needed` CUDA GPUs are visible.
#define SKIP_WITHOUT_GPUS(needed)                                                     \
  do {                                                                                \
    const int cb_visible_ = ::collbench::visible_gpu_count();                         \
    if (cb_visible_ < (needed))                                                       \
      GTEST_SKIP() << "needs " << (needed) << " GPUs, " << cb_visible_ << " visible"; \
  } while (0)
