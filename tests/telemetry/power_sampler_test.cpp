// PowerSampler on a machine without a GPU (CI): one entry per device asked for, none sampled,
// nothing thrown, and finish() may be called twice. On the GPU machine the training suite checks
// real samples (DpStepGpu.MeasureReportsThePowerState).
#include "telemetry/power_sampler.hpp"

#include <gtest/gtest.h>

#include "measure/runner.hpp"
#include "runtime/cuda_resources.hpp"

namespace collbench {
namespace {

TEST(PowerSampler, DevicesItCannotReadGetNoSummary) {
  if (visible_gpu_count() > 0) GTEST_SKIP() << "a GPU is visible: the GPU suites sample it";
  PowerSampler sampler({0, 1, 7}, std::chrono::milliseconds(1));
  const std::vector<std::optional<PowerSummary>> summaries = sampler.finish();
  ASSERT_EQ(summaries.size(), 3u);
  for (const auto& summary : summaries) EXPECT_FALSE(summary.has_value());
  EXPECT_EQ(sampler.finish().size(), 3u);
}

TEST(PowerSampler, NoDevicesNoSummaries) {
  PowerSampler sampler({}, std::chrono::milliseconds(1));
  EXPECT_TRUE(sampler.finish().empty());
}

}  // namespace
}  // namespace collbench
