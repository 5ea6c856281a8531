// Tests of time statistics and bandwidth metrics.
#include "core/metrics.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "collbench/sweep_plan.hpp"
#include "output/case_sinks.hpp"
#include "reports/report_row.hpp"

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

// 20 samples, 1..20 times `scale`, out of order.
std::vector<double> one_to_twenty(double scale) {
  std::vector<double> samples;
  for (int i = 0; i < 20; ++i) samples.push_back(((i * 7) % 20 + 1) * scale);
  return samples;
}

TEST(Metrics, TimeStatsCarrySpreadAndTheIntervals) {
  const TimeStats stats = time_stats(one_to_twenty(1));
  EXPECT_EQ(stats.samples, 20);
  EXPECT_DOUBLE_EQ(stats.mean_us, 10.5);
  EXPECT_DOUBLE_EQ(stats.p50_us, 10.5);
  EXPECT_DOUBLE_EQ(stats.stdev_us, std::sqrt(35.0));  // 1..n: variance n(n+1)/12
  EXPECT_DOUBLE_EQ(stats.cv_pct, 100 * std::sqrt(35.0) / 10.5);
  ASSERT_TRUE(stats.has_interval());
  EXPECT_DOUBLE_EQ(stats.confidence_pct, 100 * kDefaultConfidence);
  EXPECT_EQ(stats.p50_lo_us, 6);  // order statistics 6 and 15 (statistics_test.cpp)
  EXPECT_EQ(stats.p50_hi_us, 15);
  // The mean's: 10.5 -+ t(0.975, 19) x sqrt(35) / sqrt(20).
  const double half_width_us = 2.093024054408263 * std::sqrt(35.0 / 20);
  EXPECT_NEAR(stats.mean_lo_us, 10.5 - half_width_us, 1e-9);
  EXPECT_NEAR(stats.mean_hi_us, 10.5 + half_width_us, 1e-9);

  const TimeStats strict = time_stats(one_to_twenty(1), 0.99);
  EXPECT_DOUBLE_EQ(strict.confidence_pct, 99);
  EXPECT_EQ(strict.p50_lo_us, 4);
  EXPECT_EQ(strict.p50_hi_us, 17);
}

TEST(Metrics, NoIntervalBelowSixSamplesAt95) {
  const TimeStats five = time_stats({5, 1, 4, 2, 3});
  EXPECT_EQ(five.samples, 5);
  EXPECT_FALSE(five.has_interval());
  EXPECT_EQ(five.confidence_pct, 0);
  EXPECT_EQ(five.p50_lo_us, 0);
  EXPECT_EQ(five.p50_hi_us, 0);
  // The mean would have one from 2 samples, but confidence_pct 0 must mean no interval at all.
  EXPECT_EQ(five.mean_lo_us, 0);
  EXPECT_EQ(five.mean_hi_us, 0);
  const TimeStats six = time_stats({5, 1, 4, 2, 3, 6});
  ASSERT_TRUE(six.has_interval());
  EXPECT_EQ(six.p50_lo_us, 1);
  EXPECT_EQ(six.p50_hi_us, 6);
  const TimeStats one = time_stats({7});
  EXPECT_EQ(one.samples, 1);
  EXPECT_EQ(one.stdev_us, 0);
  EXPECT_FALSE(one.has_interval());
  EXPECT_EQ(time_stats({}).samples, 0);
}

// all_reduce of 1 GiB on 4 GPUs.
Case gib_all_reduce() {
  Options options;
  options.ops = {"all_reduce"};
  options.common.gpu_counts = "4";
  options.min_bytes = options.max_bytes = 1 << 30;
  options.in_place = InPlaceMode::out_of_place;
  return build_sweep(options, 4).front();
}

// busbw of 1 GiB all_reduce on 4 GPUs in `us`: 2^30 / us / 1e3 GB/s, times 2*3/4.
double gib_busbw(double us) {
  return 1073741824.0 / (us * 1e-6) / 1e9 * 1.5;
}

TEST(Metrics, BusbwIntervalComesFromTheMediansInterval) {
  const Case c = gib_all_reduce();
  const CaseMetrics metrics = case_metrics(c, one_to_twenty(1000));
  // The slow end of the time interval (15 ms) is the low busbw, the fast end (6 ms) the high.
  EXPECT_NEAR(metrics.busbw_lo_gbps, gib_busbw(15000), 1e-9);
  EXPECT_NEAR(metrics.busbw_hi_gbps, gib_busbw(6000), 1e-9);
  const double median_busbw = gib_busbw(metrics.time.p50_us);
  EXPECT_LT(metrics.busbw_lo_gbps, median_busbw);
  EXPECT_GT(metrics.busbw_hi_gbps, median_busbw);

  const CaseMetrics five = case_metrics(c, {1000, 2000, 3000, 4000, 5000});
  EXPECT_GT(five.busbw_gbps, 0);
  EXPECT_EQ(five.busbw_lo_gbps, 0);
  EXPECT_EQ(five.busbw_hi_gbps, 0);
}

TEST(Metrics, BandwidthsFollowTheRegistry) {
  const Case c = gib_all_reduce();
  // 1 GiB in 4000 us: algbw = 2^30 / 4e-3 / 1e9 GB/s; busbw = algbw * 2*3/4.
  const CaseMetrics metrics = case_metrics(c, {3000, 5000});
  EXPECT_NEAR(metrics.algbw_gbps, 268.435456, 1e-9);
  EXPECT_NEAR(metrics.busbw_gbps, 268.435456 * 1.5, 1e-9);
  EXPECT_DOUBLE_EQ(case_metrics(c, {}).busbw_gbps, 0);
}

// nccl-tests' time: the slowest rank's mean over the loop, not the mean of each sample's slowest
// rank (which overstates it when ranks' samples end at staggered times).
TEST(Metrics, TheSlowestRanksMeanIsTheReportedTime) {
  const Case c = gib_all_reduce();
  const CaseMetrics per_sample = case_metrics(c, one_to_twenty(1000));
  const CaseMetrics metrics = case_metrics(c, one_to_twenty(1000), 0, kDefaultConfidence, 10000);
  EXPECT_DOUBLE_EQ(metrics.time.mean_us, 10000);
  EXPECT_NEAR(metrics.algbw_gbps, 1073741824.0 / 1e-2 / 1e9, 1e-9);
  EXPECT_NEAR(metrics.busbw_gbps, gib_busbw(10000), 1e-9);
  // The mean's interval keeps its width around the reported mean.
  EXPECT_NEAR(metrics.time.mean_hi_us - metrics.time.mean_lo_us,
              per_sample.time.mean_hi_us - per_sample.time.mean_lo_us, 1e-9);
  EXPECT_NEAR(metrics.time.mean_lo_us, per_sample.time.mean_lo_us + 10000 - per_sample.time.mean_us,
              1e-9);
  // The median and its interval stay the samples'.
  EXPECT_DOUBLE_EQ(metrics.time.p50_us, per_sample.time.p50_us);
}

// --split MOD 2 on 4 GPUs: busbw is that of a group of 2 (factor 2*1/2 = 1), each group has its
// own figures, and the aggregate is every group's bus bytes over the slowest group's mean time.
TEST(Metrics, SplitGroupsHaveTheirOwnFiguresAndAnAggregate) {
  Case c = gib_all_reduce();
  c.communicator.split = parse_split_rule("MOD 2");
  ASSERT_EQ(c.group_ranks(), 2);
  CaseMetrics metrics = case_metrics(c, {4000, 4000});
  EXPECT_NEAR(metrics.busbw_gbps, 268.435456, 1e-9);  // 1 GiB in 4 ms, factor 1
  add_group_metrics(metrics, c, {{1000, 3000}, {4000, 4000}});
  ASSERT_EQ(metrics.groups.size(), 2u);
  EXPECT_DOUBLE_EQ(metrics.groups[0].time_us_mean, 2000);
  EXPECT_DOUBLE_EQ(metrics.groups[0].time_us_p50, 2000);
  EXPECT_NEAR(metrics.groups[0].busbw_gbps, 536.870912, 1e-9);
  EXPECT_NEAR(metrics.groups[1].busbw_gbps, 268.435456, 1e-9);
  EXPECT_NEAR(metrics.aggregate_busbw_gbps, 2 * 268.435456, 1e-9);  // both groups' bytes in 4 ms
  const std::string line = describe_group_metrics(c, metrics);
  EXPECT_EQ(line,
            "groups: [0,2] 2000.00 us 536.87 GB/s | [1,3] 4000.00 us 268.44 GB/s | aggregate busbw "
            "536.87 GB/s");
  EXPECT_NE(ConsoleTable::format_line(c, {}, metrics).find("\n#   groups: [0,2]"),
            std::string::npos);
  EXPECT_EQ(make_report_row({}, {}, c, {}, metrics).extra,
            "aggregate_busbw_gbps=536.871;group_busbw_gbps=536.871/268.435");

  CaseMetrics plain = case_metrics(c, {4000});
  add_group_metrics(plain, c, {});
  EXPECT_TRUE(plain.groups.empty());
  EXPECT_EQ(plain.aggregate_busbw_gbps, 0);
}

// nccl-tests' alltoallv: algbw = the busiest rank's bytes / time, busbw = algbw (n - 1) / n.
TEST(Metrics, AlltoallvBandwidthsAreTheBusiestRanks) {
  Options options;
  options.ops = {"alltoallv"};
  options.common.gpu_counts = "4";
  options.min_bytes = options.max_bytes = 1000;
  options.a2av_spreads = {0.5};
  const Case spread = build_sweep(options, 4).front();
  // 928 B a rank (112 + 192 + 272 + 352) in 2 us: 0.464 GB/s; busbw x 3/4.
  const CaseMetrics spread_metrics = case_metrics(spread, {1, 3});
  EXPECT_NEAR(spread_metrics.algbw_gbps, 0.464, 1e-12);
  EXPECT_NEAR(spread_metrics.busbw_gbps, 0.348, 1e-12);

  options.common.gpu_counts = "2";
  options.a2av_matrix_path = "m.txt";
  options.a2av_matrix =
      std::make_shared<const TrafficMatrix>(parse_traffic_matrix("m.txt", "0 1K\n4K 256\n"));
  const Case matrix = build_sweep(options, 2).front();
  // Rank 1 sends 4352 B, the most of any rank sent or received (the mean is 2688): 4.352 GB/s in
  // 1 us; busbw x 1/2.
  const CaseMetrics matrix_metrics = case_metrics(matrix, {1});
  EXPECT_NEAR(matrix_metrics.algbw_gbps, 4.352, 1e-12);
  EXPECT_NEAR(matrix_metrics.busbw_gbps, 2.176, 1e-12);
}

}  // namespace
}  // namespace collbench
