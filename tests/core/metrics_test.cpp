// Tests of time statistics and bandwidth metrics.
#include <gtest/gtest.h>

#include "core/metrics.hpp"

namespace collbench {
namespace {

TEST(Metrics, PercentilesInterpolateLikeNumpy) {
  const std::vector<double> values = {5, 1, 4, 2, 3};
  EXPECT_DOUBLE_EQ(percentile(values, 0), 1);
  EXPECT_DOUBLE_EQ(percentile(values, 50), 3);
  EXPECT_DOUBLE_EQ(percentile(values, 100), 5);
  EXPECT_DOUBLE_EQ(percentile(values, 25), 2);
  EXPECT_DOUBLE_EQ(percentile({10, 20}, 99), 19.9);
  EXPECT_DOUBLE_EQ(percentile({7}, 99), 7);
  EXPECT_THROW(percentile({}, 50), std::invalid_argument);
}

TEST(Metrics, TimeStats) {
  const TimeStats stats = time_stats({4, 2, 6, 8});
  EXPECT_DOUBLE_EQ(stats.mean_us, 5);
  EXPECT_DOUBLE_EQ(stats.min_us, 2);
  EXPECT_DOUBLE_EQ(stats.max_us, 8);
  EXPECT_DOUBLE_EQ(stats.p50_us, 5);
}

TEST(Metrics, BandwidthsFollowTheRegistry) {
  Options options;
  options.ops = {"all_reduce"};
  options.gpus = "4";
  options.min_bytes = options.max_bytes = 1 << 30;
  options.in_place = InPlaceMode::out_of_place;
  const Case c = build_sweep(options, 4).front();
  // 1 GiB in 4000 us: algbw = 2^30 / 4e-3 / 1e9 GB/s; busbw = algbw * 2*3/4.
  const CaseMetrics metrics = case_metrics(c, {3000, 5000});
  EXPECT_NEAR(metrics.algbw_gbps, 268.435456, 1e-9);
  EXPECT_NEAR(metrics.busbw_gbps, 268.435456 * 1.5, 1e-9);
  EXPECT_DOUBLE_EQ(case_metrics(c, {}).busbw_gbps, 0);
}

}  // namespace
}  // namespace collbench
