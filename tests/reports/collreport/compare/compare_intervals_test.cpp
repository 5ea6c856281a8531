// `collreport compare` with intervals: crafted reports whose verdicts are known (no change,
// regressed, significant but below the minimum effect, inconclusive), the fixed tolerance where a
// side has none, and the passes of --repeat pooled.
#include <gtest/gtest.h>

#include "collreport/compare/compare_run.hpp"
#include "compare/compare.hpp"
#include "compare/compare_output.hpp"
#include "support/fixture_reports.hpp"

namespace collbench::collreport {
namespace {

using fixtures::ReportRow;
constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

// `row` with its median time `p50_us` and an interval of +-`half_width` (a fraction) around it.
ReportRow with_median(ReportRow row, double p50_us, double half_width) {
  row.time.p50_us = p50_us;
  row.time.p50_lo_us = p50_us * (1 - half_width);
  row.time.p50_hi_us = p50_us * (1 + half_width);
  return row;
}

// all_reduce on 4 GPUs at bandwidth-bound sizes, 1 MiB to 1 GiB (x4 steps): 6 rows whose median
// time is `time_factor` times a model's, with intervals of +-`half_width`.
std::vector<ReportRow> sweep(double time_factor, double half_width) {
  std::vector<ReportRow> rows;
  for (std::uint64_t bytes = kMiB; bytes <= 1024 * kMiB; bytes *= 4) {
    const double p50_us = 20 + static_cast<double>(bytes) / 3e5;
    const ReportRow row = fixtures::measured_row("all_reduce", "nccl", 4, bytes, 300, p50_us);
    rows.push_back(with_median(row, p50_us * time_factor, half_width));
  }
  return rows;
}

constexpr std::size_t kSweepRows = 6;

TEST(CompareIntervals, IdenticalReportsAreNoChangeEverywhere) {
  const std::vector<ReportRow> base = fixtures::baseline_rows();
  const Comparison c = compare_rows(base, base);
  EXPECT_EQ(c.exit_code(), 0);
  EXPECT_EQ(c.count(Verdict::kNoChange), 112u);
  EXPECT_EQ(c.count(Verdict::kNotCompared), 3u);  // the skipped and oom rows
  EXPECT_EQ(c.count(Rule::kIntervals), 112u);
  EXPECT_EQ(c.count(Rule::kTolerance), 0u);
  for (const RowComparison& row : c.rows) {
    if (row.verdict != Verdict::kNoChange) continue;
    EXPECT_EQ(row.p50_change, 0);
    EXPECT_EQ(row.note, "");  // not significant: the range lies within the minimum effect
  }
}

TEST(CompareIntervals, FivePercentSlowerWithTightIntervalsRegressesEverywhere) {
  const Comparison c = compare_rows(sweep(1.0, 0.005), sweep(1.05, 0.005));
  EXPECT_EQ(c.exit_code(), 1);
  ASSERT_EQ(c.count(Verdict::kRegression), kSweepRows);
  for (const RowComparison& row : c.rows) {
    EXPECT_EQ(row.rule, Rule::kIntervals);
    EXPECT_NEAR(row.p50_change, 0.05, 1e-4);
    EXPECT_NEAR(row.p50_change_lo, 1.05 * 0.995 / 1.005 - 1, 1e-4);
    EXPECT_NEAR(row.p50_change_hi, 1.05 * 1.005 / 0.995 - 1, 1e-4);
    EXPECT_DOUBLE_EQ(row.allowed, 0.03);
  }
  EXPECT_EQ(verdict_line(c).rfind("FAIL: 6 regressions, 0 failed rows; 0 inconclusive, 0 no "
                                  "change, 0 improved",
                                  0),
            0u)
      << verdict_line(c);
}

TEST(CompareIntervals, FivePercentFasterIsImprovedAndPasses) {
  const Comparison c = compare_rows(sweep(1.0, 0.005), sweep(0.95, 0.005));
  EXPECT_EQ(c.exit_code(), 0);
  EXPECT_EQ(c.count(Verdict::kImproved), kSweepRows);
}

TEST(CompareIntervals, TwoPercentSlowerIsSignificantButBelowAThreePercentMinimum) {
  const Comparison c = compare_rows(sweep(1.0, 0.005), sweep(1.02, 0.005));
  EXPECT_EQ(c.exit_code(), 0);
  ASSERT_EQ(c.count(Verdict::kNoChange), kSweepRows);
  for (const RowComparison& row : c.rows) {
    EXPECT_GT(row.p50_change_lo, 0);  // the intervals are disjoint
    EXPECT_EQ(row.note, "significant but below the minimum effect");
  }
  // A smaller minimum effect calls the same change a regression.
  CompareOptions strict;
  strict.min_effect = 0.01;
  EXPECT_EQ(compare_rows(sweep(1.0, 0.005), sweep(1.02, 0.005), strict).count(Verdict::kRegression),
            kSweepRows);
}

TEST(CompareIntervals, NoisyRowsWithoutAShiftAreInconclusiveAndPass) {
  // +-8% intervals: the change could be -14% to +19%, far beyond the minimum effect either way.
  const Comparison c = compare_rows(sweep(1.0, 0.08), sweep(1.01, 0.08));
  EXPECT_EQ(c.exit_code(), 0);
  ASSERT_EQ(c.count(Verdict::kInconclusive), kSweepRows);
  EXPECT_EQ(
      verdict_line(c).rfind("PASS: 0 regressions, 0 failed rows; 6 inconclusive, 0 no change", 0),
      0u)
      << verdict_line(c);
  const RowComparison& row = c.rows[0];
  EXPECT_EQ(row.note,
            "range 32.5% wide, could hold a 3% change: narrow it (collbench --max-noise, or more "
            "iterations -n)");
}

TEST(CompareIntervals, ALargeChangeWithOverlappingIntervalsIsInconclusiveNotARegression) {
  // +10%, but the intervals (+-6%) overlap: not significant.
  const Comparison c = compare_rows(sweep(1.0, 0.06), sweep(1.10, 0.06));
  EXPECT_EQ(c.exit_code(), 0);
  EXPECT_EQ(c.count(Verdict::kInconclusive), kSweepRows);
  EXPECT_LT(c.rows[0].p50_change_lo, 0);
}

TEST(CompareIntervals, LatencyBoundRowsGetAWiderMinimumEffect) {
  // 8 KiB: the minimum effect is 3% x 3 = 9%; a significant 5% is no change there.
  const ReportRow small = fixtures::measured_row("all_reduce", "nccl", 4, 8192, 0.5, 25);
  const Comparison c =
      compare_rows({with_median(small, 25, 0.005)}, {with_median(small, 26.25, 0.005)});
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].verdict, Verdict::kNoChange);
  EXPECT_DOUBLE_EQ(c.rows[0].allowed, 0.09);
  CompareOptions no_widening;
  no_widening.latency_widening = 1;
  EXPECT_EQ(
      compare_rows({with_median(small, 25, 0.005)}, {with_median(small, 26.25, 0.005)}, no_widening)
          .rows[0]
          .verdict,
      Verdict::kRegression);
}

TEST(CompareIntervals, AVersionOneBaseIsJudgedByTheFixedToleranceWithANote) {
  // +7%: beyond the 5% tolerance; BASE has no intervals, so the tolerance decides.
  const Comparison c = compare_rows(sweep(1.0, 0.005), sweep(1.07, 0.005), {}, {1, 2});
  EXPECT_EQ(c.exit_code(), 1);
  ASSERT_EQ(c.count(Verdict::kRegression), kSweepRows);
  EXPECT_EQ(c.count(Rule::kTolerance), kSweepRows);
  EXPECT_EQ(c.count(Rule::kIntervals), 0u);
  for (const RowComparison& row : c.rows) {
    EXPECT_EQ(row.rule, Rule::kTolerance);
    EXPECT_DOUBLE_EQ(row.allowed, 0.05);
    EXPECT_EQ(row.note, "fixed tolerance: no interval in BASE (version 1 report)");
  }
  EXPECT_NE(verdict_line(c).find("judged by intervals 0, by fixed tolerance 6"), std::string::npos)
      << verdict_line(c);
  // +4% passes the tolerance, though a tight interval rule would call it a regression.
  EXPECT_EQ(compare_rows(sweep(1.0, 0.005), sweep(1.04, 0.005), {}, {1, 2}).exit_code(), 0);
}

TEST(CompareIntervals, RowsWithoutAnIntervalInAVersionTwoReportAreJudgedByTheTolerance) {
  std::vector<ReportRow> fresh = sweep(1.0, 0.005);
  fresh[0].time.samples = 3;  // too few for a 95% interval
  fresh[0].time.confidence_pct = 0;
  fresh[0].time.p50_lo_us = fresh[0].time.p50_hi_us = 0;
  fresh[1].time.p50_lo_us = fresh[1].time.p50_us * 1.01;  // a hand edit: p50 below its interval
  const Comparison c = compare_rows(sweep(1.0, 0.005), fresh);
  EXPECT_EQ(c.count(Rule::kTolerance), 2u);
  EXPECT_EQ(c.count(Rule::kIntervals), kSweepRows - 2);
  EXPECT_EQ(c.rows[0].note, "fixed tolerance: no interval in NEW (3 samples)");
  EXPECT_EQ(c.rows[1].note, "fixed tolerance: no interval in NEW (p50 outside its interval)");
}

// The same sweep measured in two passes: one pass like BASE, the other 8% slower.
std::vector<ReportRow> two_passes(double second_pass_factor) {
  std::vector<ReportRow> rows = sweep(1.0, 0.005);
  for (ReportRow pass : sweep(second_pass_factor, 0.005)) {
    pass.repeat = 1;
    rows.push_back(pass);
  }
  return rows;
}

TEST(CompareIntervals, PassesThatDriftApartAreInconclusiveRatherThanRegressed) {
  // Pooled: the median of 1.00 and 1.08 is 1.04, beyond the 3% minimum, but the hull of the two
  // passes' intervals overlaps BASE's: the drift is not a change the gate can vouch for.
  const Comparison c = compare_rows(sweep(1.0, 0.005), two_passes(1.08));
  EXPECT_EQ(c.exit_code(), 0);
  ASSERT_EQ(c.rows.size(), kSweepRows);  // cases, not rows: matching ignores the pass
  EXPECT_EQ(c.count(Verdict::kInconclusive), kSweepRows);
  for (const RowComparison& row : c.rows) {
    EXPECT_EQ(row.fresh_passes, 2u);
    EXPECT_NEAR(row.p50_change, 0.04, 1e-4);
    EXPECT_LT(row.p50_change_lo, 0);
    EXPECT_NE(row.note.find("NEW 2 passes, spread 8%"), std::string::npos) << row.note;
  }
  // The drifted pass alone would have been a regression.
  std::vector<ReportRow> drifted = sweep(1.08, 0.005);
  EXPECT_EQ(compare_rows(sweep(1.0, 0.005), drifted).count(Verdict::kRegression), kSweepRows);
  // Passes that agree pool into no change.
  const Comparison steady = compare_rows(two_passes(1.0), two_passes(1.0));
  EXPECT_EQ(steady.count(Verdict::kNoChange), kSweepRows);
  EXPECT_EQ(steady.rows[0].base_passes, 2u);
}

TEST(CompareIntervals, TablesShowTheChangeAndItsRange) {
  const std::vector<ReportRow> base = sweep(1.0, 0.005);
  const std::vector<ReportRow> fresh = sweep(1.05, 0.005);
  const Comparison c = compare_rows(base, fresh);
  const Table table = comparison_table(c.rows);
  ASSERT_EQ(table.columns[13].title, "range");
  EXPECT_EQ(table.rows[0][12], "+5.0%");
  EXPECT_EQ(table.rows[0][13], "[+4.0%, +6.1%]");
  EXPECT_EQ(table.rows[0][14], "3%");
  const report::Report base_report = as_report("base.csv", base);
  const report::Report fresh_report = as_report("new.csv", fresh);
  const std::string text = comparison_text(c, base_report, fresh_report, {}, {});
  EXPECT_NE(text.find("\nintervals: median time only, 95% intervals, minimum effect 3% (9% below "
                      "1 MiB, where sizes are latency-bound; dp_step rows 3%); busbw in GB/s\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("\ntolerance:"), std::string::npos) << text;  // no row was judged so
  EXPECT_NE(text.find("[+4.0%, +6.1%]"), std::string::npos);
}

TEST(CompareIntervals, MarkdownCollapsesInconclusiveRowsApartFromTheOthers) {
  std::vector<ReportRow> fresh = sweep(1.05, 0.005);
  fresh[0] = with_median(fresh[0], fresh[0].time.p50_us, 0.08);  // too wide to judge
  const report::Report base_report = as_report("base.csv", sweep(1.0, 0.005));
  const report::Report fresh_report = as_report("new.csv", fresh);
  const Comparison c = compare_reports(base_report, fresh_report, {});
  EXPECT_EQ(c.count(Verdict::kRegression), kSweepRows - 1);
  const std::string markdown = comparison_markdown(c, base_report, fresh_report, {});
  const std::size_t regressions = markdown.find("| REGRESSION |");
  const std::size_t inconclusive = markdown.find(
      "<details><summary>1 inconclusive rows (not failed: their intervals are too "
      "wide to judge)</summary>");
  ASSERT_NE(regressions, std::string::npos) << markdown;
  ASSERT_NE(inconclusive, std::string::npos) << markdown;
  EXPECT_LT(regressions, inconclusive);
  EXPECT_NE(markdown.find("- Rule: intervals: median time only"), std::string::npos) << markdown;
}

}  // namespace
}  // namespace collbench::collreport
