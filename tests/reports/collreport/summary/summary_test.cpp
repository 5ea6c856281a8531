// `collreport summary` figures on the known fixture: peak, 50%/90% sizes, latency floor, counts.
#include "summary/summary.hpp"

#include <gtest/gtest.h>

#include "collreport/compare/compare_run.hpp"
#include "reports/csv_reader.hpp"
#include "summary/pass_spread.hpp"
#include "support/fixture_reports.hpp"
#include "text/table.hpp"

namespace collbench::collreport {
namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

std::vector<report::ReportRow> known_rows(int version = report::kSchemaVersion) {
  // Through the reader, as the tool sees them: the committed fixture file is this text.
  const report::Report report = report::parse_report(
      "summary_known.csv", fixtures::to_csv(fixtures::summary_known_rows(), version));
  std::vector<report::ReportRow> rows;
  for (const report::ReportLine& line : report.rows) rows.push_back(line.row);
  return rows;
}

// By value: callers pass a temporary vector (found by AddressSanitizer, a dangling reference).
SeriesSummary find(const std::vector<SeriesSummary>& summaries, const std::string& op,
                   const std::string& algo, int ranks) {
  for (const SeriesSummary& s : summaries) {
    if (s.series.op == op && s.series.algo == algo && s.series.ranks == ranks) return s;
  }
  throw std::runtime_error("no summary for " + op + "/" + algo);
}

TEST(Summary, OneLinePerCurveInKeyOrder) {
  const std::vector<SeriesSummary> summaries = summarize(known_rows());
  ASSERT_EQ(summaries.size(), 3u);
  EXPECT_EQ(summaries[0].series.op, "all_gather");
  EXPECT_EQ(summaries[1].series.algo, "nccl");
  EXPECT_EQ(summaries[2].series.algo, "ring");
}

TEST(Summary, PeakHalfAndNinetyPercentSizesAndLatencyFloor) {
  const SeriesSummary& s = find(summarize(known_rows()), "all_reduce", "nccl", 4);
  EXPECT_DOUBLE_EQ(s.peak_busbw_gbps, 360.0);
  EXPECT_EQ(s.peak_bytes, 256 * kMiB);
  EXPECT_EQ(s.half_peak_bytes, 16 * kMiB);  // 180 GB/s is exactly half: reached counts
  EXPECT_EQ(s.ninety_peak_bytes, 64 * kMiB);
  // The p50 at the smallest measured size (1 KiB), not the skipped 512 B nor the faster 4 KiB.
  EXPECT_DOUBLE_EQ(s.latency_floor_us, 20.5);
  EXPECT_EQ(s.latency_floor_bytes, 1024u);
  EXPECT_EQ(s.ok_rows, 11u);
  EXPECT_EQ(s.skipped_rows, 1u);
  EXPECT_EQ(s.failed_rows, 1u);
  EXPECT_EQ(s.wrong_elements, 0u);
}

// nccl-tests' rows (collreport nccl-tests) carry a mean and no samples: the floor is the mean.
TEST(Summary, RowsWithOnlyAMeanTakeItAsTheirLatencyFloor) {
  std::vector<report::ReportRow> rows = known_rows();
  for (report::ReportRow& row : rows) {
    row.time.samples = 0;
    row.time.p50_us = 0;
  }
  const SeriesSummary& s = find(summarize(rows), "all_reduce", "nccl", 4);
  double smallest_mean = 0;
  for (const report::ReportRow& row : rows) {
    if (row.op == "all_reduce" && row.algo == "nccl" && row.bytes == s.latency_floor_bytes) {
      smallest_mean = row.time.mean_us;
    }
  }
  EXPECT_GT(smallest_mean, 0);
  EXPECT_DOUBLE_EQ(s.latency_floor_us, smallest_mean);
}

TEST(Summary, CountsWrongElementsAndFailures) {
  const SeriesSummary& s = find(summarize(known_rows()), "all_reduce", "ring", 4);
  EXPECT_EQ(s.wrong_elements, 7u);
  EXPECT_EQ(s.failed_rows, 1u);
  EXPECT_EQ(s.ok_rows, 1u);
  EXPECT_DOUBLE_EQ(s.peak_busbw_gbps, 40.0);
  EXPECT_EQ(s.half_peak_bytes, kMiB);
}

TEST(Summary, ATiedPeakIsReachedAtTheSmallerSize) {
  const SeriesSummary& s = find(summarize(known_rows()), "all_gather", "nccl", 2);
  EXPECT_EQ(s.peak_bytes, 4 * kMiB);
  EXPECT_EQ(s.half_peak_bytes, kMiB);
  EXPECT_EQ(s.ninety_peak_bytes, 4 * kMiB);
}

TEST(Summary, SeparatesCurvesThatDifferInAnotherSetting) {
  std::vector<report::ReportRow> rows = known_rows();
  report::ReportRow graph_row = fixtures::measured_row("all_reduce", "nccl", 4, 1024, 0.1, 9.0);
  graph_row.graph = 10;
  rows.push_back(graph_row);
  const std::vector<SeriesSummary> summaries = summarize(rows);
  ASSERT_EQ(summaries.size(), 4u);
  // The graph-replayed curve has its own floor; the normal curve keeps 20.5 us.
  EXPECT_DOUBLE_EQ(find(summaries, "all_reduce", "nccl", 4).latency_floor_us, 20.5);
  const Table table = summary_table(summaries);
  EXPECT_EQ(table.rows.size(), 4u);
  bool saw_graph_variant = false;
  for (const auto& cells : table.rows) saw_graph_variant |= cells[4] == "graph=10";
  EXPECT_TRUE(saw_graph_variant);
}

TEST(Summary, ACurveWithoutMeasurementsShowsDashes) {
  report::ReportRow skipped = fixtures::measured_row("broadcast", "nccl", 2, 8, 0, 0);
  skipped.status = report::kStatusSkipped;
  const std::vector<SeriesSummary> summaries = summarize({skipped});
  ASSERT_EQ(summaries.size(), 1u);
  EXPECT_EQ(summaries[0].ok_rows, 0u);
  const Table table = summary_table(summaries);
  EXPECT_EQ(table.rows[0][5], "-");
  EXPECT_EQ(table.rows[0][11], "-");  // no interval either
  EXPECT_EQ(table.rows[0][14], "1");
}

TEST(Summary, TableShowsHumanReadableSizes) {
  const Table table = summary_table(summarize(known_rows()));
  const std::string text = render_text(table);
  EXPECT_NE(text.find("256 MiB"), std::string::npos) << text;
  EXPECT_NE(text.find("1 KiB"), std::string::npos) << text;
  EXPECT_NE(text.find("360.0"), std::string::npos) << text;
}

TEST(Summary, TheLatencyFloorAndTheWidestIntervalShowTheirHalfWidth) {
  const std::vector<SeriesSummary> summaries = summarize(known_rows());
  const SeriesSummary& s = find(summaries, "all_reduce", "nccl", 4);
  EXPECT_NEAR(s.latency_floor_half_width, 0.015, 1e-4);  // the fixtures' +-cv/2 below 1 MiB
  EXPECT_NEAR(s.widest_half_width, 0.015, 1e-4);
  EXPECT_LT(s.widest_bytes, kMiB);
  const Table table = summary_table(summaries);
  ASSERT_EQ(table.columns[11].title, "widest p50 ±");
  EXPECT_EQ(table.rows[1][9], "20.50 ±1.5%");
  EXPECT_EQ(table.rows[1][11].rfind("±1.5% at ", 0), 0u) << table.rows[1][11];
  EXPECT_EQ(table.rows[0][9], "5.20 ±0.5%");  // all_gather at 1 MiB: +-cv/2 = 0.5%
  // A version 1 report has no intervals: the floor alone, and no widest.
  const Table old = summary_table(summarize(known_rows(1)));
  EXPECT_EQ(old.rows[1][9], "20.50");
  EXPECT_EQ(old.rows[1][11], "-");
}

// One case in three passes (p50 50, 52, 51 us), one in two (80, 88 us), one in a single pass.
std::vector<report::ReportRow> passes() {
  std::vector<report::ReportRow> rows;
  auto add = [&rows](std::uint64_t bytes, int repeat, double p50_us) {
    report::ReportRow row = fixtures::measured_row("all_reduce", "nccl", 4, bytes, 100, p50_us);
    row.repeat = repeat;
    rows.push_back(row);
  };
  add(kMiB, 0, 50);
  add(kMiB, 1, 52);
  add(kMiB, 2, 51);
  add(4 * kMiB, 0, 80);
  add(4 * kMiB, 1, 88);
  add(16 * kMiB, 0, 200);
  return rows;
}

TEST(Summary, PassSpreadsListTheWidestCaseFirst) {
  const std::vector<CaseSpread> spreads = pass_spreads(as_report("passes.csv", passes()));
  ASSERT_EQ(spreads.size(), 2u);  // the single-pass case has no spread
  EXPECT_EQ(spreads[0].key.bytes, 4 * kMiB);
  EXPECT_NEAR(spreads[0].spread, 0.10, 1e-12);
  EXPECT_EQ(spreads[1].passes, 3u);
  EXPECT_NEAR(spreads[1].spread, 0.04, 1e-12);
  EXPECT_NEAR(median_spread(spreads), 0.07, 1e-12);
  EXPECT_EQ(pass_spread_heading(spreads, 1),
            "Between passes (--repeat): 2 cases measured in 2 to 3 passes; spread = slowest "
            "pass's p50 / fastest's - 1; median 7.0%, the 1 widest:");
  const Table table = pass_spread_table(spreads, 1);
  ASSERT_EQ(table.rows.size(), 1u);
  EXPECT_EQ(table.rows[0], (std::vector<std::string>{"all_reduce", "nccl", "4", "float", "",
                                                     "4 MiB", "2", "80.00", "88.00", "10.0%"}));
}

TEST(Summary, AReportWithoutRepeatsHasNoPassSpreads) {
  EXPECT_TRUE(pass_spreads(as_report("one.csv", fixtures::baseline_rows())).empty());
}

}  // namespace
}  // namespace collbench::collreport
