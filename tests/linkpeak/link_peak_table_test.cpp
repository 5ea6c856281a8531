// Tests of reading the per-GPU link peak back from a link-peak CSV: which rows count, and that
// bad input is one error naming the file.
#include "telemetry/link_peak_table.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "reports/csv_writer.hpp"

namespace collbench {
namespace {

std::string temp_path(const std::string& name) {
  return std::string(::testing::TempDir()) + "collbench_" + std::to_string(::getpid()) + "_" + name;
}

report::ReportRow peak_row(const std::string& algo, int src, int dst, const std::string& direction,
                           double gbps, const std::string& status = report::kStatusOk) {
  report::ReportRow row;
  row.timestamp = "2026-11-25T12:00:00Z";  // the reader checks every column's domain
  row.origin.launch_mode = "single_process";
  row.origin.nodes = 1;
  row.op = kLinkPeakOp;
  row.algo = algo;
  row.ranks = 2;
  row.dtype = "uint8";
  row.redop = "none";
  row.root = -1;
  row.bytes = 1u << 30;
  row.count = row.bytes;
  row.config = link_peak_config(src, dst, direction);
  row.time.p50_us = static_cast<double>(row.bytes) / gbps / 1e3;
  row.algbw_gbps = gbps;
  row.busbw_gbps = gbps;
  row.status = status;
  if (status != report::kStatusOk) row.reason = "test";
  return row;
}

void write_csv(const std::string& path, const std::vector<report::ReportRow>& rows) {
  report::CsvWriter writer(path);
  for (const report::ReportRow& row : rows) writer.write(row);
}

// The UsageError's message, or "" when none was thrown.
std::string usage_error(const std::string& path) {
  try {
    read_link_peak_gbps(path);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "";
}

TEST(LinkPeakTable, ConfigValues) {
  EXPECT_EQ(link_peak_config(0, 3, "bi"), "src=0;dst=3;direction=bi");
  EXPECT_EQ(config_value("src=0;dst=3;direction=bi", "dst"), "3");
  EXPECT_EQ(config_value("src=0;dst=3;direction=bi", "direction"), "bi");
  EXPECT_EQ(config_value("src=0;dst=3", "direction"), "");
  EXPECT_EQ(config_value("xsrc=1;src=2", "src"), "2");  // whole keys only
  EXPECT_EQ(config_value("", "src"), "");
}

TEST(LinkPeakTable, PeakIsTheBestOkCopyEngineOneDirectionRow) {
  const std::string path = temp_path("link_peak.csv");
  write_csv(path, {
                      peak_row(kCopyEngineAlgo, 0, 1, "uni", 390.0),
                      peak_row(kCopyEngineAlgo, 1, 0, "uni", 392.5),
                      peak_row(kCopyEngineAlgo, 0, 1, "bi", 410.0),   // both directions: not a peak
                      peak_row(kCopyEngineAlgo, 0, 1, "all", 420.0),  // ring: not a peak
                      peak_row(kSmCopyAlgo, 0, 1, "uni", 400.0),      // other method
                      peak_row(kCopyEngineAlgo, 2, 3, "uni", 999.0, "error"),  // not ok
                  });
  EXPECT_DOUBLE_EQ(read_link_peak_gbps(path), 392.5);
  std::remove(path.c_str());
}

TEST(LinkPeakTable, MissingFileNamesTheFile) {
  const std::string path = temp_path("no_such_file.csv");
  const std::string message = usage_error(path);
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

TEST(LinkPeakTable, NoCopyEngineRowNamesTheFile) {
  const std::string path = temp_path("sm_only.csv");
  write_csv(path, {peak_row(kSmCopyAlgo, 0, 1, "uni", 400.0),
                   peak_row(kCopyEngineAlgo, 0, 1, "bi", 410.0)});
  const std::string message = usage_error(path);
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find(kLinkPeakOp), std::string::npos) << message;
  std::remove(path.c_str());
}

TEST(LinkPeakTable, CollectiveReportIsNotALinkPeakFile) {
  const std::string path = temp_path("collectives.csv");
  report::ReportRow row = peak_row(kCopyEngineAlgo, 0, 1, "uni", 390.0);
  row.op = "all_reduce";
  row.algo = "nccl";
  row.config = "";
  write_csv(path, {row});
  EXPECT_NE(usage_error(path).find(path), std::string::npos);
  std::remove(path.c_str());
}

TEST(LinkPeakTable, GarbageNamesTheFile) {
  const std::string path = temp_path("garbage.csv");
  std::ofstream(path) << "this is,not a report\n1,2\n";
  const std::string message = usage_error(path);
  EXPECT_NE(message.find(path), std::string::npos) << message;
  std::remove(path.c_str());
}

TEST(LinkPeakTable, RowsInMemory) {
  EXPECT_DOUBLE_EQ(link_peak_gbps({peak_row(kCopyEngineAlgo, 0, 1, "uni", 12.5)}, "rows"), 12.5);
  EXPECT_THROW(link_peak_gbps({}, "rows"), UsageError);
}

}  // namespace
}  // namespace collbench
