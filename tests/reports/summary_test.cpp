// `collreport summary` figures on the known fixture: peak, 50%/90% sizes, latency floor, counts.
#include "summary.hpp"

#include <gtest/gtest.h>

#include "csv_reader.hpp"
#include "fixture_reports.hpp"
#include "table.hpp"

namespace collbench::collreport {
namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

std::vector<report::ReportRow> known_rows() {
  // Through the reader, as the tool sees them: the committed fixture file is this text.
  const report::Report report =
      report::parse_report("summary_known.csv", fixtures::to_csv(fixtures::summary_known_rows()));
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
  EXPECT_EQ(table.rows[0][13], "1");
}

TEST(Summary, TableShowsHumanReadableSizes) {
  const Table table = summary_table(summarize(known_rows()));
  const std::string text = render_text(table);
  EXPECT_NE(text.find("256 MiB"), std::string::npos) << text;
  EXPECT_NE(text.find("1 KiB"), std::string::npos) << text;
  EXPECT_NE(text.find("360.0"), std::string::npos) << text;
}

}  // namespace
}  // namespace collbench::collreport
