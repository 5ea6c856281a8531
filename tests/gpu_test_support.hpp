// Shared by the GPU test suites: skip (visibly, with the reason) when too few GPUs are present.
#pragma once

#include <gtest/gtest.h>

#include "runner.hpp"

// In a test body: skips the test unless at least `needed` CUDA GPUs are visible.
#define SKIP_WITHOUT_GPUS(needed)                                                                      \
  do {                                                                                                \
    const int cb_visible_ = ::collbench::visible_gpu_count();                                         \
    if (cb_visible_ < (needed)) GTEST_SKIP() << "needs " << (needed) << " GPUs, " << cb_visible_ << " visible"; \
  } while (0)
