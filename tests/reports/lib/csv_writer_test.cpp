// Tests of CSV writing: header from the schema, quoting, and rows on disk as soon as written.
#include "reports/csv_writer.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "reports/schema.hpp"

namespace collbench::report {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream content;
  content << in.rdbuf();
  return content.str();
}

std::string temp_path(const char* name) {
  return ::testing::TempDir() + name;
}

TEST(CsvWriter, EscapesOnlyWhatNeedsIt) {
  EXPECT_EQ(csv_escape("plain"), "plain");
  EXPECT_EQ(csv_escape("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_escape("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_escape("two\nlines\r\n"), "\"two lines  \"");
}

TEST(CsvWriter, HeaderIsTheSchemaAndRowsAreFlushedImmediately) {
  const std::string path = temp_path("collbench_writer_test.csv");
  CsvWriter writer(path);
  EXPECT_EQ(read_file(path), header_line() + "\n");
  ReportRow row;
  row.op = "all_reduce";
  row.reason = "NCCL said: \"no, really\", twice";
  row.bytes = 8589934592ull;
  row.busbw_gbps = 361.25;
  writer.write(row);
  // Read while the writer is still open: the row must already be on disk.
  const std::string content = read_file(path);
  EXPECT_NE(content.find("\"NCCL said: \"\"no, really\"\", twice\""), std::string::npos) << content;
  EXPECT_NE(content.find(",8589934592,"), std::string::npos);
  EXPECT_NE(content.find(",361.250,"), std::string::npos);
  EXPECT_EQ(std::count(content.begin(), content.end(), '\n'), 2);
}

TEST(CsvWriter, HeaderHasEveryRequiredColumnOnce) {
  const std::string header = header_line();
  for (const char* column : {"schema_version",
                             "timestamp",
                             "host",
                             "gpu_name",
                             "driver",
                             "cuda_runtime",
                             "nccl_version",
                             "collbench_version",
                             "op",
                             "algo",
                             "ranks",
                             "dtype",
                             "redop",
                             "root",
                             "in_place",
                             "bytes",
                             "count",
                             "warmup",
                             "iters",
                             "graph",
                             "time_us_mean",
                             "time_us_min",
                             "time_us_p50",
                             "time_us_p99",
                             "time_us_max",
                             "algbw_gbps",
                             "busbw_gbps",
                             "wrong_elements",
                             "status",
                             "reason"}) {
    EXPECT_NE(column_index(column), kColumnCount) << column;
  }
  for (std::size_t i = 0; i < kColumnCount; ++i) EXPECT_EQ(column_index(kColumns[i].name), i);
}

TEST(CsvWriter, ColumnsRoundTrip) {
  ReportRow row;
  row.ranks = 4;
  row.in_place = true;
  row.time.p50_us = 24.125;
  row.status = "oom";
  ReportRow back;
  for (const Column& column : kColumns) column.parse(back, column.format(row));
  EXPECT_EQ(back.ranks, 4);
  EXPECT_TRUE(back.in_place);
  EXPECT_DOUBLE_EQ(back.time.p50_us, 24.125);
  EXPECT_EQ(back.status, "oom");
  EXPECT_THROW(kColumns[column_index("ranks")].parse(back, "four"), ColumnParseError);
  EXPECT_THROW(kColumns[column_index("busbw_gbps")].parse(back, "nan"), ColumnParseError);
}

TEST(CsvWriter, UnwritablePathIsAClearError) {
  try {
    CsvWriter writer("/nonexistent-dir/x.csv");
    ADD_FAILURE();
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("/nonexistent-dir/x.csv"), std::string::npos);
  }
}

}  // namespace
}  // namespace collbench::report
