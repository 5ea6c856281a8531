// `collreport merge`: concatenation round-trips through the reader; a repeated measurement is
// refused.
#include "rows/merge.hpp"

#include <gtest/gtest.h>

#include "csv_reader.hpp"
#include "csv_writer.hpp"
#include "support/fixture_reports.hpp"

namespace collbench::collreport {
namespace {

TEST(Merge, RoundTripsTwoHalvesOfAReport) {
  const std::vector<report::ReportRow> rows = fixtures::baseline_rows();
  const std::size_t half = rows.size() / 2;
  const std::vector<report::ReportRow> first(rows.begin(), rows.begin() + half);
  const std::vector<report::ReportRow> second(rows.begin() + half, rows.end());
  const report::Report merged =
      merge_reports({report::parse_report("a.csv", fixtures::to_csv(first)),
                     report::parse_report("b.csv", fixtures::to_csv(second))},
                    "merged.csv");
  const std::string text = report_csv(merged);
  // The merged file is byte for byte what writing all rows at once gives, and reads back.
  EXPECT_EQ(text, fixtures::to_csv(rows));
  const report::Report read_back = report::parse_report("merged.csv", text);
  ASSERT_EQ(read_back.rows.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(report::format_row(read_back.rows[i].row), report::format_row(rows[i]));
  }
}

TEST(Merge, RefusesARowPresentInTwoReports) {
  const std::vector<report::ReportRow> rows = fixtures::baseline_rows();
  const std::vector<report::ReportRow> overlap(rows.begin() + 3, rows.begin() + 5);
  try {
    merge_reports({report::parse_report("a.csv", fixtures::to_csv(rows)),
                   report::parse_report("b.csv", fixtures::to_csv(overlap))},
                  "merged.csv");
    FAIL() << "overlapping reports were merged";
  } catch (const report::ReportError& error) {
    EXPECT_EQ(error.file(), "b.csv");
    EXPECT_EQ(error.line(), 2u);
    EXPECT_NE(std::string(error.what()).find("same independent variables as a.csv:5"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace collbench::collreport
