// The report reader: valid reports read back exactly; each kind of bad report is one error naming
// the file and the right line.
#include "reports/csv_reader.hpp"

#include <gtest/gtest.h>

#include "reports/csv_writer.hpp"
#include "reports/schema.hpp"
#include "support/csv_text.hpp"
#include "support/fixture_reports.hpp"

namespace collbench::report {
namespace {

using fixtures::join_lines;
using fixtures::split_lines;
using fixtures::with_field;

std::string valid_text() {
  return fixtures::to_csv(fixtures::baseline_rows());
}

// The error a text gives, or a failure when it reads cleanly.
ReportError read_error(const std::string& text) {
  try {
    parse_report("bad.csv", text);
  } catch (const ReportError& error) {
    return error;
  }
  ADD_FAILURE() << "the report was accepted";
  return ReportError("bad.csv", 0, "no error");
}

TEST(CsvReader, ReadsBackEveryFieldAsWritten) {
  const std::vector<ReportRow> rows = fixtures::baseline_rows();
  const Report report = parse_report("good.csv", fixtures::to_csv(rows));
  ASSERT_EQ(report.rows.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(format_row(report.rows[i].row), format_row(rows[i])) << "row " << i;
    EXPECT_EQ(report.rows[i].line, i + 2);  // line 1 is the header
  }
}

TEST(CsvReader, ReadsQuotedFieldsAndColumnsInAnyOrder) {
  ReportRow row = fixtures::measured_row("all_reduce", "nccl", 2, 1024, 1.5, 20.0);
  row.reason = "a, \"quoted\" reason";
  const std::vector<std::string> lines = split_lines(fixtures::to_csv({row}));
  // Swap the first two columns in the header and the row alike.
  auto swap_first_two = [](const std::string& line) {
    const std::size_t first = line.find(',');
    const std::size_t second = line.find(',', first + 1);
    return line.substr(first + 1, second - first - 1) + "," + line.substr(0, first) +
           line.substr(second);
  };
  const Report report =
      parse_report("swapped.csv", join_lines({swap_first_two(lines[0]), swap_first_two(lines[1])}));
  ASSERT_EQ(report.rows.size(), 1u);
  EXPECT_EQ(report.rows[0].row.reason, "a, \"quoted\" reason");
  EXPECT_EQ(format_row(report.rows[0].row), format_row(row));
}

TEST(CsvReader, AcceptsAByteOrderMarkAndWindowsLineEnds) {
  std::string text = "\xEF\xBB\xBF";
  for (const std::string& line : split_lines(valid_text())) text += line + "\r\n";
  EXPECT_EQ(parse_report("bom.csv", text).rows.size(), fixtures::baseline_rows().size());
}

TEST(CsvReader, SkipsBlankLinesButCountsThem) {
  std::vector<std::string> lines = split_lines(valid_text());
  lines.insert(lines.begin() + 2, "");
  lines[4] = with_field(lines[4], "bytes", "12x");
  const ReportError error = read_error(join_lines(lines));
  EXPECT_EQ(error.line(), 5u);
  EXPECT_STREQ(error.what(), "bad.csv:5: column 'bytes': '12x' is not an integer");
}

TEST(CsvReader, RejectsUnparsableNumbersWithTheirLine) {
  std::vector<std::string> lines = split_lines(valid_text());
  lines[2] = with_field(lines[2], "busbw_gbps", "fast");
  const ReportError error = read_error(join_lines(lines));
  EXPECT_EQ(error.line(), 3u);
  EXPECT_STREQ(error.what(),
               "bad.csv:3: column 'busbw_gbps': 'fast' is not a plain non-negative decimal number "
               "(like 12.345)");
}

TEST(CsvReader, RejectsNegativeAndFractionalSizes) {
  for (const char* bytes : {"-8", "8.5", ""}) {
    std::vector<std::string> lines = split_lines(valid_text());
    lines[7] = with_field(lines[7], "bytes", bytes);
    EXPECT_EQ(read_error(join_lines(lines)).line(), 8u) << bytes;
  }
}

TEST(CsvReader, RejectsAnUnknownSchemaVersion) {
  std::vector<std::string> lines = split_lines(valid_text());
  for (std::size_t i = 1; i < lines.size(); ++i)
    lines[i] = with_field(lines[i], "schema_version", "4");
  const ReportError error = read_error(join_lines(lines));
  EXPECT_EQ(error.line(), 2u);
  EXPECT_STREQ(error.what(),
               "bad.csv:2: unknown schema version '4' (this tool reads versions 1, 2 and 3)");
}

TEST(CsvReader, ReadsAVersionOneReportWithoutIntervals) {
  const std::vector<ReportRow> rows = fixtures::baseline_rows();
  const Report report = parse_report("old.csv", fixtures::to_csv(rows, 1));
  ASSERT_EQ(report.rows.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const ReportRow& row = report.rows[i].row;
    EXPECT_EQ(row.schema_version, 1);
    EXPECT_FALSE(row.has_interval()) << "row " << i;
    EXPECT_EQ(row.time.confidence_pct, 0);
    EXPECT_EQ(row.time.samples, 0);
    EXPECT_EQ(row.repeat, 0);
    EXPECT_EQ(row.time.p50_lo_us, 0);
    EXPECT_EQ(row.time.p50_us, rows[i].time.p50_us);  // the version 1 columns are all read
    EXPECT_EQ(row.busbw_gbps, rows[i].busbw_gbps);
  }
}

TEST(CsvReader, AVersionThreeReportRoundTripsItsIntervals) {
  const std::vector<ReportRow> rows = fixtures::baseline_rows();
  const Report report = parse_report("new.csv", fixtures::to_csv(rows));
  ASSERT_EQ(report.rows.size(), rows.size());
  const ReportRow& row = report.rows[0].row;
  EXPECT_EQ(row.schema_version, 3);
  EXPECT_TRUE(row.has_interval());
  EXPECT_EQ(row.time.confidence_pct, 95);
  EXPECT_EQ(row.time.samples, 20);
  EXPECT_EQ(row.stop, "fixed");
  EXPECT_LT(row.time.p50_lo_us, row.time.p50_us);
  EXPECT_GT(row.time.p50_hi_us, row.time.p50_us);
  EXPECT_LT(row.time.mean_lo_us, row.time.mean_us);
  EXPECT_GT(row.time.mean_hi_us, row.time.mean_us);
  EXPECT_EQ(row.time.mean_lo_us, rows[0].time.mean_lo_us);
  EXPECT_EQ(row.time.mean_hi_us, rows[0].time.mean_hi_us);
  EXPECT_EQ(fixtures::to_csv({row}), fixtures::to_csv({rows[0]}));
}

TEST(CsvReader, ReadsAVersionTwoReportWithoutTheMeansInterval) {
  const std::vector<ReportRow> rows = fixtures::baseline_rows();
  const std::string text = fixtures::to_csv(rows, 2);
  EXPECT_EQ(text.find("time_us_mean_lo"), std::string::npos);
  const Report report = parse_report("v2.csv", text);
  ASSERT_EQ(report.rows.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const ReportRow& row = report.rows[i].row;
    EXPECT_EQ(row.schema_version, 2);
    EXPECT_EQ(row.time.mean_lo_us, 0) << "row " << i;
    EXPECT_EQ(row.time.mean_hi_us, 0) << "row " << i;
    // Every version 2 column is read, the median's interval included.
    EXPECT_EQ(row.has_interval(), rows[i].has_interval()) << "row " << i;
    EXPECT_EQ(row.time.p50_lo_us, rows[i].time.p50_lo_us);
    EXPECT_EQ(row.time.p50_hi_us, rows[i].time.p50_hi_us);
    EXPECT_EQ(row.busbw_gbps_lo, rows[i].busbw_gbps_lo);
  }
  // Written back, a version 2 row is a version 3 row without the mean's interval.
  ReportRow expected = rows[0];
  expected.time.mean_lo_us = expected.time.mean_hi_us = 0;
  EXPECT_EQ(fixtures::to_csv({report.rows[0].row}), fixtures::to_csv({expected}));
}

TEST(CsvReader, AnOlderRowInAVersionThreeHeaderIsNamed) {
  std::vector<std::string> lines = split_lines(valid_text());
  lines[4] = with_field(lines[4], "schema_version", "2");
  EXPECT_STREQ(read_error(join_lines(lines)).what(),
               "bad.csv:5: schema version 2 in a report whose header is version 3");
}

TEST(CsvReader, AHeaderMixingVersionsTwoAndThreeIsNamed) {
  std::vector<std::string> lines = split_lines(fixtures::to_csv(fixtures::baseline_rows(), 2));
  lines[0] += ",time_us_mean_lo";
  for (std::size_t i = 1; i < lines.size(); ++i) lines[i] += ",1";
  EXPECT_STREQ(read_error(join_lines(lines)).what(),
               "bad.csv:1: header mixes schema versions 2 and 3: it has version 3's columns "
               "'time_us_mean_lo' but lacks 'time_us_mean_hi'");
}

TEST(CsvReader, AHeaderMixingVersionsIsNamed) {
  // Version 1's columns and one that version 2 added: neither version.
  std::vector<std::string> lines = split_lines(fixtures::to_csv(fixtures::baseline_rows(), 1));
  lines[0] += ",samples";
  for (std::size_t i = 1; i < lines.size(); ++i) lines[i] += ",20";
  const ReportError error = read_error(join_lines(lines));
  EXPECT_EQ(error.line(), 1u);
  EXPECT_STREQ(error.what(),
               "bad.csv:1: header mixes schema versions 1 and 2: it has version 2's columns "
               "'samples' but lacks 'repeat', 'stop', 'confidence_pct', 'time_us_stdev', "
               "'time_cv_pct', 'time_us_p50_lo', 'time_us_p50_hi', 'busbw_gbps_lo' and 1 more");
}

TEST(CsvReader, NamesTheVersionWhenAnotherVersionHasOtherColumns) {
  std::vector<std::string> lines = split_lines(valid_text());
  lines[0] += ",new_column";
  for (std::size_t i = 1; i < lines.size(); ++i) {
    lines[i] = with_field(lines[i], "schema_version", "4") + ",42";
  }
  const ReportError error = read_error(join_lines(lines));
  EXPECT_EQ(error.line(), 2u);
  EXPECT_NE(std::string(error.what()).find("unknown schema version '4'"), std::string::npos);
}

TEST(CsvReader, NamesEveryMissingAndExtraColumnOfTheHeader) {
  std::vector<std::string> lines = split_lines(valid_text());
  lines[0] = with_field(with_field(lines[0], "extra", "bogus"), "host", "hostname");
  const ReportError error = read_error(join_lines(lines));
  EXPECT_EQ(error.line(), 1u);
  EXPECT_STREQ(error.what(),
               "bad.csv:1: header does not match schema version 3: missing columns 'host', "
               "'extra'; extra columns 'hostname', 'bogus'");
}

// A version 1 header is compared with version 1: not told that it lacks version 2's columns.
TEST(CsvReader, NamesTheMissingColumnsOfAVersionOneHeaderAgainstVersionOne) {
  std::vector<std::string> lines = split_lines(fixtures::to_csv(fixtures::baseline_rows(), 1));
  // with_field counts version 2's columns; a version 1 header has `host` at the same place.
  lines[0].replace(lines[0].find(",host,"), 6, ",hostname,");
  EXPECT_STREQ(read_error(join_lines(lines)).what(),
               "bad.csv:1: header does not match schema version 1: missing columns 'host'; extra "
               "columns 'hostname'");
}

TEST(CsvReader, RejectsADuplicatedHeaderColumn) {
  std::vector<std::string> lines = split_lines(valid_text());
  lines[0] = with_field(lines[0], "reason", "status");
  const std::string message = read_error(join_lines(lines)).what();
  EXPECT_NE(message.find("missing columns 'reason'"), std::string::npos) << message;
  EXPECT_NE(message.find("duplicated columns 'status'"), std::string::npos) << message;
}

TEST(CsvReader, RejectsEmptyFilesAndHeaderOnlyFiles) {
  EXPECT_STREQ(read_error("").what(), "bad.csv:1: empty file (no header line)");
  EXPECT_STREQ(read_error("\n\n").what(), "bad.csv:1: empty file (no header line)");
  EXPECT_STREQ(read_error(header_line() + "\n").what(), "bad.csv:2: no data rows after the header");
}

TEST(CsvReader, RejectsRowsWithTooFewOrTooManyFields) {
  std::vector<std::string> lines = split_lines(valid_text());
  lines[3] = lines[3].substr(0, lines[3].rfind(','));
  EXPECT_STREQ(read_error(join_lines(lines)).what(),
               "bad.csv:4: too few fields (schema version 3 has 48 columns)");
  lines = split_lines(valid_text());
  lines[5] += ",surplus";
  EXPECT_STREQ(read_error(join_lines(lines)).what(),
               "bad.csv:6: too many fields (schema version 3 has 48 columns)");
  lines = split_lines(fixtures::to_csv(fixtures::baseline_rows(), 1));
  lines[3] = lines[3].substr(0, lines[3].rfind(','));
  EXPECT_STREQ(read_error(join_lines(lines)).what(),
               "bad.csv:4: too few fields (schema version 1 has 36 columns)");
}

TEST(CsvReader, RejectsAnUnclosedQuote) {
  std::vector<std::string> lines = split_lines(valid_text());
  lines[2] = with_field(lines[2], "reason", "\"never closed");
  EXPECT_EQ(read_error(join_lines(lines)).line(), 3u);
}

TEST(CsvReader, RejectsAnUnknownStatus) {
  std::vector<std::string> lines = split_lines(valid_text());
  lines[4] = with_field(lines[4], "status", "fine");
  EXPECT_STREQ(read_error(join_lines(lines)).what(),
               "bad.csv:5: column 'status': 'fine' is not one of ok, skipped, oom, error, timeout");
}

TEST(CsvReader, RejectsADuplicateRowNamingTheFirst) {
  std::vector<std::string> lines = split_lines(valid_text());
  // Same independent variables, other measured values: still the same measurement twice.
  lines.push_back(with_field(lines[2], "busbw_gbps", "1.000"));
  const ReportError error = read_error(join_lines(lines));
  EXPECT_EQ(error.line(), lines.size());
  EXPECT_NE(std::string(error.what()).find("duplicate row: same independent variables as line 3"),
            std::string::npos)
      << error.what();
}

TEST(CsvReader, RowsDifferingInOneIndependentVariableAreNotDuplicates) {
  std::vector<std::string> lines = split_lines(valid_text());
  for (const char* column : {"in_place", "graph", "agg_iters", "config", "redop", "root"}) {
    std::vector<std::string> edited = lines;
    const std::string value = column == std::string("config")  ? "layers=2"
                              : column == std::string("redop") ? "max"
                              : column == std::string("root")  ? "1"
                                                               : "7";
    edited.push_back(with_field(lines[2], column, column == std::string("in_place") ? "1" : value));
    EXPECT_NO_THROW(parse_report("ok.csv", join_lines(edited))) << column;
  }
}

TEST(CsvReader, WhatTheWriterWritesReadsBackWhateverTheTextFieldsHold) {
  // Found by the fuzz test: unquoted padding was trimmed away on reading.
  ReportRow row = fixtures::measured_row("all_reduce", "nccl", 2, 1024, 1.5, 20.0);
  row.origin.host = " padded\t";
  row.reason = "NCCL said:\x1b[31m bad\x01\r\nthing";
  row.extra = "a,\"b\"";
  const Report report = parse_report("written.csv", fixtures::to_csv({row}));
  ASSERT_EQ(report.rows.size(), 1u);
  EXPECT_EQ(report.rows[0].row.origin.host, " padded\t");
  EXPECT_EQ(report.rows[0].row.reason, "NCCL said: [31m bad   thing");
  EXPECT_EQ(report.rows[0].row.extra, "a,\"b\"");
}

TEST(CsvReader, ReportsAMissingFile) {
  try {
    read_report("/nonexistent/report.csv");
    FAIL() << "a missing file was read";
  } catch (const ReportError& error) {
    EXPECT_EQ(std::string(error.what()).rfind("/nonexistent/report.csv: cannot open", 0), 0u)
        << error.what();
  }
}

}  // namespace
}  // namespace collbench::report
