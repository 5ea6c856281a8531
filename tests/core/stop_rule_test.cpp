// Tests of the stopping rule: fixed iterations, convergence once the floors are met and both the
// median's and the mean's intervals are narrow, the --max-time cap, and how large the next batch
// is.
#include "core/stop_rule.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "reports/report_row.hpp"
#include "reports/statistics.hpp"

namespace collbench {
namespace {

constexpr double kConfidence = 0.95;

StopRule adaptive(double max_noise_pct, int min_samples = 20, double min_time_s = 0,
                  double max_time_s = 1.0, double max_mean_noise_pct = 3) {
  StopRule rule;
  rule.max_noise_pct = max_noise_pct;
  rule.max_mean_noise_pct = max_mean_noise_pct;
  rule.min_samples = min_samples;
  rule.min_time_s = min_time_s;
  rule.max_time_s = max_time_s;
  return rule;
}

// `count` samples of `us` each.
std::vector<double> constant(std::size_t count, double us) {
  return std::vector<double>(count, us);
}

// 1, 100, 1, 100, ... us: a median interval far wider than any --max-noise.
std::vector<double> wide(std::size_t count) {
  std::vector<double> samples(count);
  for (std::size_t i = 0; i < count; ++i) samples[i] = i % 2 ? 100 : 1;
  return samples;
}

TEST(StopRule, TimedSecondsCountEveryOperationOfASample) {
  EXPECT_DOUBLE_EQ(timed_seconds({10, 20, 30}, 1), 60e-6);
  EXPECT_DOUBLE_EQ(timed_seconds({10, 20, 30}, 4), 240e-6);
  EXPECT_EQ(timed_seconds({}, 8), 0);
}

TEST(StopRule, FixedIterationsStopAtOnce) {
  StopRule fixed;
  EXPECT_TRUE(fixed.adaptive());  // the default stops when stable
  fixed.max_noise_pct = 0;
  EXPECT_FALSE(fixed.adaptive());
  for (const std::vector<double>& samples : {std::vector<double>{}, wide(20), constant(3, 5)}) {
    const StopDecision decision = next_step(fixed, samples, 1, kConfidence, 20);
    EXPECT_TRUE(decision.done);
    EXPECT_EQ(decision.reason, report::kStopFixed);
    EXPECT_EQ(decision.next_samples, 0u);
  }
}

TEST(StopRule, FirstBatchCoversTheMinimumSamples) {
  const StopDecision first = next_step(adaptive(1, 50), {}, 1, kConfidence, 20);
  EXPECT_FALSE(first.done);
  EXPECT_EQ(first.next_samples, 50u);
  EXPECT_EQ(next_step(adaptive(1, 50), {}, 1, kConfidence, 80).next_samples, 80u);
  // Short of the floor after a batch: at least the rest of it.
  EXPECT_EQ(next_step(adaptive(1, 50), constant(10, 5), 1, kConfidence, 4).next_samples, 40u);
}

TEST(StopRule, ConstantSamplesConvergeOnceTheFloorsAreMet) {
  const StopDecision short_of_samples =
      next_step(adaptive(1, 20), constant(19, 10), 1, kConfidence, 20);
  EXPECT_FALSE(short_of_samples.done);
  EXPECT_EQ(short_of_samples.next_samples, 20u);

  const StopDecision converged = next_step(adaptive(1, 20), constant(20, 10), 1, kConfidence, 20);
  EXPECT_TRUE(converged.done);
  EXPECT_EQ(converged.reason, report::kStopConverged);

  // 20 x 7 us are 0.14 ms of a 5 ms floor: not yet, and the next batch reaches it: 4.86 ms / 7 us
  // = 694.3, so 695 samples.
  const StopRule floor = adaptive(1, 20, 0.005);
  const StopDecision short_of_time = next_step(floor, constant(20, 7), 1, kConfidence, 20);
  EXPECT_FALSE(short_of_time.done);
  EXPECT_EQ(short_of_time.next_samples, 695u);
  const StopDecision after = next_step(floor, constant(20 + 695, 7), 1, kConfidence, 20);
  EXPECT_TRUE(after.done);
  EXPECT_EQ(after.reason, report::kStopConverged);
  // 4 operations per sample: 20 samples are 0.56 ms, each next one 28 us; 4.44 ms / 28 us = 158.6.
  EXPECT_EQ(next_step(floor, constant(20, 7), 4, kConfidence, 20).next_samples, 159u);
}

// 1..20 us: median 10.5 us, 95% interval [6, 15] us (half-width 42.9% of the median), 99%
// interval [4, 17] (61.9%).
TEST(StopRule, JudgesTheMediansIntervalAtTheConfidence) {
  std::vector<double> samples;
  for (int us = 20; us >= 1; --us) samples.push_back(us);
  // The mean's bound out of the way: this is about the median's interval.
  const auto median_only = [](double max_noise_pct) {
    return adaptive(max_noise_pct, 20, 0, 1.0, 100);
  };
  EXPECT_TRUE(next_step(median_only(43), samples, 1, 0.95, 20).done);
  EXPECT_FALSE(next_step(median_only(42), samples, 1, 0.95, 20).done);
  EXPECT_FALSE(next_step(median_only(43), samples, 1, 0.99, 20).done);
  EXPECT_TRUE(next_step(median_only(62), samples, 1, 0.99, 20).done);
  // Fewer than 6 samples have no 95% interval, so they never converge.
  EXPECT_FALSE(next_step(adaptive(100, 1), constant(5, 10), 1, 0.95, 5).done);
}

// `count` samples of 330 us, the last one replaced by a stray 2.4 ms.
std::vector<double> with_stray_sample(std::size_t count) {
  std::vector<double> samples(count, 330);
  samples.back() = 2400;
  return samples;
}

// One stray sample among twenty leaves the median's interval on 330 us but moves the mean (which
// busbw comes from) by 31%: its interval, half the mean wide, keeps the case going.
TEST(StopRule, AStraySampleKeepsTheCaseGoingUntilTheMeanSettles) {
  const StopRule rule = adaptive(1, 20, 0, 1.0, 1);
  const std::vector<double> twenty = with_stray_sample(20);
  std::vector<double> sorted = twenty;
  std::sort(sorted.begin(), sorted.end());
  ASSERT_EQ(stats::median_interval(sorted, kConfidence)->relative_half_width(330), 0);
  const StopDecision going = next_step(rule, twenty, 1, kConfidence, 20);
  EXPECT_FALSE(going.done);
  EXPECT_EQ(going.next_samples, 20u);

  // 2,000 samples (0.66 s): the stray one adds 0.3% to the mean, and its interval is 0.6%.
  const StopDecision settled = next_step(rule, with_stray_sample(2000), 1, kConfidence, 20);
  EXPECT_TRUE(settled.done);
  EXPECT_EQ(settled.reason, report::kStopConverged);
  // 1,000 samples: 1.2%, still too wide.
  EXPECT_FALSE(next_step(rule, with_stray_sample(1000), 1, kConfidence, 20).done);
  // Under the default 0.1 s the case ends at the limit, its stop column saying so.
  const StopDecision capped =
      next_step(adaptive(1, 20, 0, 0.1), with_stray_sample(310), 1, kConfidence, 20);
  EXPECT_TRUE(capped.done);
  EXPECT_EQ(capped.reason, report::kStopTimeLimit);
}

// The default bound on the mean is 3%: the stray sample's 2,070 us excess spread over n samples
// leaves an interval of about 1.96 x 2,070 / n, 3% of 330 us from n = 410 on.
TEST(StopRule, TheMeansDefaultBoundIsLooserThanTheMedians) {
  const StopRule rule = adaptive(1, 20, 0, 1.0);
  EXPECT_DOUBLE_EQ(StopRule{}.max_mean_noise_pct, 3);
  EXPECT_FALSE(next_step(rule, with_stray_sample(20), 1, kConfidence, 20).done);
  EXPECT_FALSE(next_step(rule, with_stray_sample(380), 1, kConfidence, 20).done);
  const StopDecision settled = next_step(rule, with_stray_sample(450), 1, kConfidence, 20);
  EXPECT_TRUE(settled.done);
  EXPECT_EQ(settled.reason, report::kStopConverged);
}

// wide(n) averages 50.5 us a sample.
TEST(StopRule, WideSamplesRunUntilTheTimeLimit) {
  const StopRule rule = adaptive(1, 20, 0, 0.1);
  const StopDecision going = next_step(rule, wide(1000), 1, kConfidence, 20);  // 50.5 ms
  EXPECT_FALSE(going.done);
  EXPECT_GT(going.next_samples, 0u);
  const StopDecision stopped = next_step(rule, wide(2000), 1, kConfidence, 20);  // 101 ms
  EXPECT_TRUE(stopped.done);
  EXPECT_EQ(stopped.reason, report::kStopTimeLimit);
  // The limit counts operations: 1,000 samples of 10 operations each are 505 ms.
  EXPECT_EQ(next_step(rule, wide(1000), 10, kConfidence, 20).reason, report::kStopTimeLimit);
  // --max-time ends a case even short of --min-iters.
  EXPECT_EQ(next_step(adaptive(1, 10'000, 0, 0.01), constant(2000, 10), 1, kConfidence, 20).reason,
            report::kStopTimeLimit);
}

TEST(StopRule, NextBatchGrowsWithTheSamplesButNotPastTheTimeLeft) {
  const StopRule rule = adaptive(1, 20, 0, 10);
  EXPECT_EQ(next_step(rule, wide(30), 1, kConfidence, 20).next_samples, 20u);  // the base batch
  EXPECT_EQ(next_step(rule, wide(1000), 1, kConfidence, 20).next_samples, 500u);
  EXPECT_EQ(next_step(rule, wide(4000), 1, kConfidence, 20).next_samples, 2000u);

  // 200 samples are 10.1 ms of a 10.5 ms limit: 0.4 ms / 50.5 us = 7.9, so 8 samples reach it,
  // however large the base batch (400) or half the samples so far (100).
  const StopDecision last = next_step(adaptive(1, 20, 0, 0.0105), wide(200), 1, kConfidence, 400);
  EXPECT_FALSE(last.done);
  EXPECT_EQ(last.next_samples, 8u);
}

}  // namespace
}  // namespace collbench
