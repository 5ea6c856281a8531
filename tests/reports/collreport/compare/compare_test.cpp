// `collreport compare`: the tolerance rule (on version 1 reports, which have no intervals), what
// fails the gate whatever the rule, and what is only listed. compare_intervals_test.cpp tests the
// interval rule.
#include "compare/compare.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "collreport/compare/compare_run.hpp"
#include "compare/compare_output.hpp"
#include "reports/csv_reader.hpp"
#include "support/fixture_reports.hpp"

namespace collbench::collreport {
namespace {

using fixtures::ReportRow;
constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

// Version 2 reports: the interval rule judges measured rows.
Comparison compare(const std::vector<ReportRow>& base, const std::vector<ReportRow>& fresh,
                   const CompareOptions& options = {}) {
  return compare_rows(base, fresh, options);
}

// Version 1 reports: the tolerance rule judges measured rows.
Comparison compare_v1(const std::vector<ReportRow>& base, const std::vector<ReportRow>& fresh,
                      const CompareOptions& options = {}) {
  return compare_rows(base, fresh, options, {1, 1});
}

TEST(Compare, IdenticalVersionOneReportsPassByTolerance) {
  const std::vector<ReportRow> base = fixtures::baseline_rows();
  const Comparison c = compare_v1(base, base);
  EXPECT_EQ(c.exit_code(), 0);
  EXPECT_EQ(c.count(Verdict::kNoChange), 112u);
  EXPECT_EQ(c.count(Verdict::kNotCompared), 3u);  // a skipped and an oom row, skipped on both
  EXPECT_EQ(c.count(Rule::kTolerance), 112u);
  EXPECT_EQ(c.count(Rule::kIntervals), 0u);
  EXPECT_EQ(c.rows.back().note, "fixed tolerance: no interval in BASE or NEW (version 1 report)");
}

TEST(Compare, TenPercentBusbwLossAtLargeSizesFails) {
  const std::vector<ReportRow> base = fixtures::baseline_rows();
  const Comparison c = compare_v1(base, fixtures::with_busbw_regression(base, 0.10, 64 * kMiB));
  EXPECT_EQ(c.exit_code(), 1);
  // 128 MiB and 1 GiB of all_reduce/nccl/4 GPUs.
  ASSERT_EQ(c.count(Verdict::kRegression), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const RowComparison& row = c.rows[i];  // regressions come first
    EXPECT_EQ(row.verdict, Verdict::kRegression);
    EXPECT_GE(row.key.bytes, 64 * kMiB);
    EXPECT_TRUE(row.busbw_judged);
    EXPECT_NEAR(row.busbw_change, -0.10, 0.002);
    EXPECT_NEAR(row.p50_change, 1.0 / 0.9 - 1.0, 0.002);
  }
}

TEST(Compare, NoiseWithinTolerancePassesByTolerance) {
  const std::vector<ReportRow> base = fixtures::baseline_rows();
  // 10% on latency-bound sizes (allowed 15%), 3% on the others (allowed 5%).
  const Comparison c = compare_v1(base, fixtures::with_noise(base, 0.10, 0.03));
  EXPECT_EQ(c.exit_code(), 0) << verdict_line(c);
  EXPECT_EQ(c.count(Verdict::kRegression), 0u);
  EXPECT_EQ(c.count(Verdict::kImproved), 0u);
}

TEST(Compare, TheSameNoiseFailsWhereTheToleranceIsNotWidened) {
  const std::vector<ReportRow> base = fixtures::baseline_rows();
  const std::vector<ReportRow> noisy = fixtures::with_noise(base, 0.10, 0.03);
  CompareOptions no_widening;
  no_widening.latency_widening = 1.0;
  const Comparison c = compare_v1(base, noisy, no_widening);
  EXPECT_EQ(c.exit_code(), 1);
  for (const RowComparison& row : c.rows) {
    if (row.verdict == Verdict::kRegression) {
      EXPECT_LT(row.key.bytes, kMiB);
    }
  }
  // And 10% noise at large sizes fails with the default rule.
  EXPECT_EQ(compare_v1(base, fixtures::with_noise(base, 0.0, 0.10)).exit_code(), 1);
}

TEST(Compare, ToleranceRuleIsWiderForLatencyBoundCollectives) {
  const CompareOptions options;  // 5%, x3 below 1 MiB
  EXPECT_DOUBLE_EQ(
      allowed_change(fixtures::measured_row("all_reduce", "nccl", 4, 8, 0, 20), options), 0.15);
  EXPECT_DOUBLE_EQ(
      allowed_change(fixtures::measured_row("all_reduce", "nccl", 4, kMiB - 1, 0, 20), options),
      0.15);
  EXPECT_DOUBLE_EQ(
      allowed_change(fixtures::measured_row("all_reduce", "nccl", 4, kMiB, 0, 20), options), 0.05);
  ReportRow step = fixtures::measured_row("dp_step", "nccl", 4, 0, 0, 20000);
  EXPECT_DOUBLE_EQ(allowed_change(step, options), 0.05);
  EXPECT_FALSE(
      judges_busbw(fixtures::measured_row("all_reduce", "nccl", 4, 8, 0.001, 20), options));
  EXPECT_FALSE(
      judges_busbw(fixtures::measured_row("all_reduce", "nccl", 4, 2 * kMiB, 0.5, 20), options));
  EXPECT_TRUE(
      judges_busbw(fixtures::measured_row("all_reduce", "nccl", 4, 2 * kMiB, 50.0, 20), options));
  // The interval rule's minimum effect (3%) is widened alike.
  EXPECT_DOUBLE_EQ(
      minimum_effect(fixtures::measured_row("all_reduce", "nccl", 4, kMiB - 1, 0, 20), options),
      0.09);
  EXPECT_DOUBLE_EQ(
      minimum_effect(fixtures::measured_row("all_reduce", "nccl", 4, kMiB, 0, 20), options), 0.03);
  EXPECT_DOUBLE_EQ(minimum_effect(step, options), 0.03);
}

TEST(Compare, ExactlyTheToleranceIsNoise) {
  const ReportRow base = fixtures::measured_row("all_reduce", "nccl", 4, 64 * kMiB, 100.0, 100.0);
  ReportRow at_limit = fixtures::measured_row("all_reduce", "nccl", 4, 64 * kMiB, 95.0, 105.0);
  EXPECT_EQ(compare_v1({base}, {at_limit}).rows[0].verdict, Verdict::kNoChange);
  ReportRow beyond = fixtures::measured_row("all_reduce", "nccl", 4, 64 * kMiB, 95.0, 105.01);
  EXPECT_EQ(compare_v1({base}, {beyond}).rows[0].verdict, Verdict::kRegression);
  ReportRow slower_busbw = fixtures::measured_row("all_reduce", "nccl", 4, 64 * kMiB, 94.9, 100.0);
  EXPECT_EQ(compare_v1({base}, {slower_busbw}).rows[0].verdict, Verdict::kRegression);
  ReportRow faster = fixtures::measured_row("all_reduce", "nccl", 4, 64 * kMiB, 120.0, 83.3);
  const Comparison c = compare_v1({base}, {faster});
  EXPECT_EQ(c.rows[0].verdict, Verdict::kImproved);
  EXPECT_EQ(c.exit_code(), 0);
}

TEST(Compare, WrongElementsInNewFail) {
  const std::vector<ReportRow> base = fixtures::baseline_rows();
  const Comparison c = compare(base, fixtures::with_wrong_elements(base, 3));
  EXPECT_EQ(c.exit_code(), 1);
  ASSERT_EQ(c.count(Verdict::kFailed), 1u);
  EXPECT_EQ(c.rows[0].verdict, Verdict::kFailed);
  EXPECT_EQ(c.rows[0].note, "3 wrong elements");
}

TEST(Compare, WrongElementsInARowOnlyInNewFail) {
  const ReportRow base = fixtures::measured_row("all_reduce", "nccl", 4, kMiB, 50, 30);
  ReportRow extra = fixtures::measured_row("all_reduce", "nccl", 4, 2 * kMiB, 80, 40);
  extra.wrong_elements = 1;
  const Comparison c = compare({base}, {base, extra});
  EXPECT_EQ(c.exit_code(), 1);
  EXPECT_EQ(c.rows[0].verdict, Verdict::kFailed);
}

// A few slow iterations lower the mean-based busbw but not the median: still a regression (a
// periodic stall looks the same), with a note that says which it may be.
TEST(Compare, ABusbwLossWithASteadyMedianIsARegressionWithANote) {
  const ReportRow base = fixtures::measured_row("all_reduce", "ring", 4, 8 * kMiB, 200, 61.4);
  const ReportRow outliers = fixtures::measured_row("all_reduce", "ring", 4, 8 * kMiB, 178, 61.6);
  const Comparison c = compare_v1({base}, {outliers});
  EXPECT_EQ(c.exit_code(), 1);
  ASSERT_EQ(c.rows[0].verdict, Verdict::kRegression);
  EXPECT_NE(c.rows[0].note.find("p50 steady"), std::string::npos) << c.rows[0].note;
  // A slower median gets no such note.
  const ReportRow slower = fixtures::measured_row("all_reduce", "ring", 4, 8 * kMiB, 178, 69.0);
  EXPECT_EQ(compare_v1({base}, {slower}).rows[0].note.find("p50 steady"), std::string::npos);
  // The interval rule judges the median only: the same rows with intervals are no change.
  EXPECT_EQ(compare({base}, {outliers}).rows[0].verdict, Verdict::kNoChange);
}

TEST(Compare, WrongElementsOnlyInBaseDoNotFail) {
  ReportRow base = fixtures::measured_row("all_reduce", "nccl", 4, kMiB, 50, 30);
  base.wrong_elements = 5;
  const ReportRow fixed = fixtures::measured_row("all_reduce", "nccl", 4, kMiB, 50, 30);
  const Comparison c = compare({base}, {fixed});
  EXPECT_EQ(c.exit_code(), 0);
  EXPECT_EQ(c.rows[0].note, "BASE had 5 wrong elements");
}

TEST(Compare, AFailureInNewWhereBaseWasOkFails) {
  const ReportRow base = fixtures::measured_row("all_reduce", "nccl", 4, kMiB, 50, 30);
  ReportRow failed = base;
  failed.status = report::kStatusTimeout;
  failed.reason = "no progress for 60 s";
  const Comparison c = compare({base}, {failed});
  EXPECT_EQ(c.exit_code(), 1);
  EXPECT_EQ(c.rows[0].verdict, Verdict::kFailed);
  EXPECT_EQ(c.rows[0].note, "timeout in NEW: no progress for 60 s");
}

TEST(Compare, SkippedRowsAndRowsOnOneSideAreListedButPass) {
  const ReportRow kept = fixtures::measured_row("all_reduce", "nccl", 4, kMiB, 50, 30);
  const ReportRow dropped = fixtures::measured_row("all_reduce", "nccl", 4, 2 * kMiB, 80, 40);
  const ReportRow added = fixtures::measured_row("all_gather", "nccl", 4, kMiB, 60, 20);
  const ReportRow steady = fixtures::measured_row("all_reduce", "nccl", 4, 4 * kMiB, 90, 80);
  ReportRow skipped = kept;
  skipped.status = report::kStatusSkipped;
  skipped.reason = "needs 4 GPUs";
  const Comparison c = compare({kept, dropped, steady}, {skipped, added, steady});
  EXPECT_EQ(c.exit_code(), 0);
  EXPECT_EQ(c.count(Verdict::kNotCompared), 1u);
  EXPECT_EQ(c.count(Verdict::kOnlyInBase), 1u);
  EXPECT_EQ(c.count(Verdict::kOnlyInNew), 1u);
  EXPECT_EQ(c.count(Verdict::kNoChange), 1u);
}

// The message of the NothingComparedError that comparing `base` with `fresh` throws.
std::string nothing_compared_message(const std::vector<ReportRow>& base,
                                     const std::vector<ReportRow>& fresh) {
  try {
    compare(base, fresh);
  } catch (const NothingComparedError& error) {
    return error.what();
  }
  ADD_FAILURE() << "the comparison passed";
  return "";
}

TEST(Compare, NoMatchingRowIsAnErrorNotAPass) {
  const std::vector<ReportRow> base = fixtures::baseline_rows();
  std::vector<ReportRow> other_config = base;
  // The same sweep, 10x slower, under another config: no row matches, so nothing may pass.
  for (ReportRow& row : other_config) {
    row.config += row.config.empty() ? "layers=2" : ";layers=2";
    row.time.p50_us *= 10;
  }
  const std::string message = nothing_compared_message(base, other_config);
  EXPECT_EQ(message.rfind(fmt::format("nothing compared: no row of NEW matches a row of BASE ({} "
                                      "only in BASE, {} only in NEW;",
                                      base.size(), base.size()),
                          0),
            0u)
      << message;
  EXPECT_EQ(message.find('\n'), std::string::npos);
}

TEST(Compare, MatchedRowsThatWereNeverBothMeasuredAreAnError) {
  ReportRow measured = fixtures::measured_row("all_reduce", "nccl", 4, kMiB, 50, 30);
  ReportRow skipped = measured;
  skipped.status = report::kStatusSkipped;
  EXPECT_EQ(nothing_compared_message({skipped}, {measured}),
            "nothing compared: 1 rows match, but none is ok in both BASE and NEW");
  // A failure in NEW where BASE was ok is a verdict, not "nothing compared".
  ReportRow failed = measured;
  failed.status = report::kStatusError;
  EXPECT_EQ(compare({measured}, {failed}).exit_code(), 1);
}

TEST(Compare, AZeroBaseTimeFailsWithAVerdictOfItsOwn) {
  const ReportRow good = fixtures::measured_row("all_reduce", "nccl", 4, 64 * kMiB, 300, 400);
  ReportRow zero_time = good;
  zero_time.time.p50_us = 0;
  ReportRow ten_times_slower = good;
  ten_times_slower.time.p50_us *= 10;
  ten_times_slower.busbw_gbps /= 10;

  const Comparison zero_base = compare({zero_time}, {ten_times_slower});
  EXPECT_EQ(zero_base.exit_code(), 1);
  ASSERT_EQ(zero_base.count(Verdict::kNoTime), 1u);
  EXPECT_NE(zero_base.rows[0].note.find("BASE is ok but its p50 time is 0"), std::string::npos);
  EXPECT_EQ(verdict_line(zero_base).rfind("FAIL: 0 regressions, 0 failed rows, 1 row without a "
                                          "time;",
                                          0),
            0u)
      << verdict_line(zero_base);

  const Comparison zero_new = compare({good}, {zero_time});
  EXPECT_EQ(zero_new.exit_code(), 1);
  ASSERT_EQ(zero_new.count(Verdict::kNoTime), 1u);
  EXPECT_EQ(zero_new.rows[0].note, "NEW is ok but its p50 time is 0");
}

TEST(Compare, MarkdownListsRegressionsFirstAndTheRestCollapsed) {
  const std::vector<ReportRow> base = fixtures::baseline_rows();
  const report::Report base_report = as_report("base.csv", base);
  const report::Report fresh_report =
      as_report("new.csv", fixtures::with_busbw_regression(base, 0.10, 64 * kMiB));
  const CompareOptions options;
  const std::string markdown = comparison_markdown(
      compare_reports(base_report, fresh_report, options), base_report, fresh_report, options);
  EXPECT_EQ(markdown.rfind("### collreport compare: FAIL: 2 regressions, 0 failed rows", 0), 0u)
      << markdown;
  const std::size_t first_regression = markdown.find("| REGRESSION |");
  const std::size_t details = markdown.find("<details>");
  ASSERT_NE(first_regression, std::string::npos);
  ASSERT_NE(details, std::string::npos);
  EXPECT_LT(first_regression, details);
  EXPECT_NE(markdown.find("| 128 MiB |"), std::string::npos);
  EXPECT_NE(markdown.find("NVIDIA H200, 2-4 GPUs, NCCL 2.28.3, 2026-11-22"), std::string::npos);
}

}  // namespace
}  // namespace collbench::collreport
