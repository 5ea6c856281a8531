// The passes of --repeat pooled into cases: median of the passes' p50, the hull of their
// intervals, the worst status, and the spread between passes.
#include "rows/repeats.hpp"

#include <gtest/gtest.h>

#include "collreport/compare/compare_run.hpp"
#include "support/fixture_reports.hpp"

namespace collbench::collreport {
namespace {

using fixtures::ReportRow;

ReportRow pass(int repeat, double p50_us, double lo_us, double hi_us) {
  ReportRow row = fixtures::measured_row("all_reduce", "nccl", 4, 1 << 20, 100, p50_us);
  row.repeat = repeat;
  row.time.p50_lo_us = lo_us;
  row.time.p50_hi_us = hi_us;
  row.busbw_gbps = 1000 / p50_us;
  return row;
}

TEST(Repeats, OnePassIsItsOwnCase) {
  const ReportRow only = pass(0, 50, 49, 51);
  const ReportRow pooled = pool_passes({&only});
  EXPECT_EQ(pooled.time.p50_us, 50);
  EXPECT_EQ(pooled.time.p50_lo_us, 49);
  EXPECT_EQ(pooled.time.samples, only.time.samples);
}

TEST(Repeats, SeveralPassesPoolIntoTheMedianAndTheHullOfTheirIntervals) {
  const ReportRow a = pass(0, 50, 49.5, 50.5), b = pass(1, 54, 53, 55), c = pass(2, 51, 50, 52);
  const ReportRow pooled = pool_passes({&a, &b, &c});
  EXPECT_EQ(pooled.status, "ok");
  EXPECT_EQ(pooled.time.p50_us, 51);
  EXPECT_EQ(pooled.time.p50_lo_us, 49.5);
  EXPECT_EQ(pooled.time.p50_hi_us, 55);
  EXPECT_DOUBLE_EQ(pooled.busbw_gbps, 1000.0 / 51);
  EXPECT_EQ(pooled.time.samples, 60);
  EXPECT_TRUE(pooled.has_interval());
  // An even count: the mean of the two middle values.
  EXPECT_EQ(pool_passes({&a, &b}).time.p50_us, 52);
}

TEST(Repeats, APassWithoutAnIntervalLeavesTheCaseWithout) {
  const ReportRow a = pass(0, 50, 49, 51);
  ReportRow b = pass(1, 52, 0, 0);
  b.time.confidence_pct = 0;
  const ReportRow pooled = pool_passes({&a, &b});
  EXPECT_FALSE(pooled.has_interval());
  EXPECT_EQ(pooled.time.mean_lo_us, 0);
  EXPECT_EQ(pooled.time.mean_hi_us, 0);
}

TEST(Repeats, TheMeansIntervalsPoolIntoTheirHull) {
  ReportRow a = pass(0, 50, 49, 51), b = pass(1, 54, 53, 55);
  a.time.mean_lo_us = 50;
  a.time.mean_hi_us = 52;
  b.time.mean_lo_us = 54.5;
  b.time.mean_hi_us = 57;
  const ReportRow pooled = pool_passes({&a, &b});
  EXPECT_EQ(pooled.time.mean_lo_us, 50);
  EXPECT_EQ(pooled.time.mean_hi_us, 57);
  // A pass read from a version 2 report has none: nor has the case.
  b.time.mean_lo_us = b.time.mean_hi_us = 0;
  EXPECT_EQ(pool_passes({&a, &b}).time.mean_hi_us, 0);
  EXPECT_TRUE(pool_passes({&a, &b}).has_interval());  // the median's stays
}

TEST(Repeats, AFailedPassOutweighsSkippedAndOkPasses) {
  const ReportRow a = pass(0, 50, 49, 51);
  ReportRow skipped = pass(1, 0, 0, 0), failed = pass(2, 0, 0, 0);
  skipped.status = "skipped";
  failed.status = "timeout";
  failed.reason = "no progress for 60 s";
  failed.wrong_elements = 2;
  const ReportRow pooled = pool_passes({&a, &skipped, &failed});
  EXPECT_EQ(pooled.status, "timeout");
  EXPECT_EQ(pooled.reason, "no progress for 60 s");
  EXPECT_EQ(pooled.wrong_elements, 2u);
  EXPECT_EQ(pool_passes({&a, &skipped}).status, "skipped");
}

TEST(Repeats, CasesGroupThePassesOfOneKeyAndMeasureTheirSpread) {
  std::vector<ReportRow> rows = {pass(0, 50, 49, 51), pass(1, 52, 51, 53), pass(2, 51, 50, 52)};
  ReportRow other_size = pass(0, 80, 79, 81);
  other_size.bytes = 2 << 20;
  rows.push_back(other_size);
  const report::Report report = as_report("passes.csv", rows);
  EXPECT_TRUE(has_repeats(report));
  const std::vector<PooledCase> cases = pool_repeats(report);
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0].passes, 3u);
  EXPECT_EQ(cases[0].key.repeat, 0);
  EXPECT_EQ(cases[0].line.line, 2u);  // the first pass's line
  EXPECT_DOUBLE_EQ(cases[0].spread(), 52.0 / 50 - 1);
  EXPECT_EQ(cases[1].passes, 1u);
  EXPECT_EQ(cases[1].spread(), 0);
  EXPECT_FALSE(has_repeats(as_report("one.csv", {other_size})));
}

}  // namespace
}  // namespace collbench::collreport
