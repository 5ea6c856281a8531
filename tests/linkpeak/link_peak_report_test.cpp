// Tests of the link-peak probe's pure parts: which transfers run together, the CSV row of a
// measurement, the printed matrices and the summary line; and that its rows read back.
#include "link_peak_report.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "reports/csv_reader.hpp"
#include "reports/csv_writer.hpp"
#include "telemetry/link_peak_table.hpp"

namespace collbench::link_peak {
namespace {

constexpr std::size_t kGiB = std::size_t{1} << 30;

RunMetadata info() {
  RunMetadata metadata;
  metadata.host = "host";
  metadata.gpu_name = "NVIDIA H200";
  metadata.driver = "580.159.04";
  metadata.cuda_runtime = "13.0";
  metadata.nccl_version = "2.28.3";
  metadata.collbench_version = "0.1.0";
  return metadata;
}

TransferResult measured(int src, int dst, std::vector<double> iteration_us) {
  TransferResult result;
  result.transfer = {src, dst};
  result.iteration_us = std::move(iteration_us);
  result.checked_words = kGiB / 4;
  return result;
}

TEST(TransferGroups, OneDirectionIsEveryOrderedPairAlone) {
  const auto groups = transfer_groups(Direction::uni, 4);
  ASSERT_EQ(groups.size(), 12u);
  std::set<std::pair<int, int>> pairs;
  for (const auto& group : groups) {
    ASSERT_EQ(group.size(), 1u);
    EXPECT_NE(group[0].src, group[0].dst);
    pairs.insert({group[0].src, group[0].dst});
    EXPECT_EQ(gpus_in_group(group), 2);
  }
  EXPECT_EQ(pairs.size(), 12u);
}

TEST(TransferGroups, BothDirectionsPairEachWayOnce) {
  const auto groups = transfer_groups(Direction::bi, 4);
  ASSERT_EQ(groups.size(), 6u);
  for (const auto& group : groups) {
    ASSERT_EQ(group.size(), 2u);
    EXPECT_EQ(group[0].src, group[1].dst);
    EXPECT_EQ(group[0].dst, group[1].src);
    EXPECT_LT(group[0].src, group[0].dst);
  }
}

TEST(TransferGroups, AllIsOneRingWithEveryGpuReceivingOnce) {
  const auto groups = transfer_groups(Direction::all, 4);
  ASSERT_EQ(groups.size(), 1u);
  ASSERT_EQ(groups[0].size(), 4u);
  std::set<int> receivers;
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(groups[0][i].src, i);
    EXPECT_EQ(groups[0][i].dst, (i + 1) % 4);
    receivers.insert(groups[0][i].dst);
  }
  EXPECT_EQ(receivers.size(), 4u);
  EXPECT_EQ(gpus_in_group(groups[0]), 4);
  EXPECT_TRUE(transfer_groups(Direction::uni, 1).empty());
  EXPECT_TRUE(transfer_groups(Direction::all, 1).empty());
}

TEST(LinkPeakRow, BandwidthIsBytesOverMedianTime) {
  const ProbeSettings settings{kGiB, 3, 3};
  const report::ReportRow row = make_row(info(), settings, CopyMethod::copy_engine, Direction::uni,
                                         2, measured(0, 1, {2800, 2700, 2750}));
  EXPECT_EQ(row.op, "p2p_peak");
  EXPECT_EQ(row.algo, "copy_engine");
  EXPECT_EQ(row.config, "src=0;dst=1;direction=uni");
  EXPECT_EQ(row.ranks, 2);
  EXPECT_EQ(row.bytes, kGiB);
  EXPECT_EQ(row.warmup, 3);
  EXPECT_EQ(row.iters, 3);
  EXPECT_EQ(row.status, "ok");
  EXPECT_DOUBLE_EQ(row.time.p50_us, 2750.0);
  EXPECT_DOUBLE_EQ(row.time.min_us, 2700.0);
  EXPECT_DOUBLE_EQ(row.time.max_us, 2800.0);
  EXPECT_NEAR(row.algbw_gbps, 1073741824.0 / 2750.0 / 1e3, 1e-9);  // 390.45 GB/s
  EXPECT_DOUBLE_EQ(row.busbw_gbps, row.algbw_gbps);
  EXPECT_EQ(row.origin.driver, "580.159.04");
  EXPECT_EQ(row.origin.launch_mode, "single_process");
}

TEST(LinkPeakRow, WrongDataIsAnErrorAndUnmeasuredIsSkipped) {
  const ProbeSettings settings{kGiB, 1, 2};
  TransferResult wrong = measured(1, 0, {1000, 1000});
  wrong.wrong_words = 5;
  const report::ReportRow error =
      make_row(info(), settings, CopyMethod::sm_copy, Direction::bi, 2, wrong);
  EXPECT_EQ(error.status, "error");
  EXPECT_EQ(error.wrong_elements, 5u);
  EXPECT_NE(error.reason.find("5 of"), std::string::npos) << error.reason;

  TransferResult skipped;
  skipped.transfer = {0, 1};
  skipped.skipped_reason = "GPU 1 has no peer access to GPU 0";
  const report::ReportRow row =
      make_row(info(), settings, CopyMethod::sm_copy, Direction::uni, 2, skipped);
  EXPECT_EQ(row.status, "skipped");
  EXPECT_EQ(row.reason, skipped.skipped_reason);
  EXPECT_EQ(row.busbw_gbps, 0.0);
}

std::vector<report::ReportRow> sample_rows() {
  const ProbeSettings settings{kGiB, 1, 1};
  std::vector<report::ReportRow> rows;
  // 1 GiB in 2684.35456 us is 400 GB/s; the times below give round figures.
  auto at = [](double gbps) { return std::vector<double>{1073741824.0 / gbps / 1e3}; };
  rows.push_back(make_row(info(), settings, CopyMethod::copy_engine, Direction::uni, 2,
                          measured(0, 1, at(390))));
  rows.push_back(make_row(info(), settings, CopyMethod::copy_engine, Direction::uni, 2,
                          measured(1, 0, at(395))));
  rows.push_back(make_row(info(), settings, CopyMethod::copy_engine, Direction::bi, 2,
                          measured(0, 1, at(380))));
  rows.push_back(make_row(info(), settings, CopyMethod::copy_engine, Direction::bi, 2,
                          measured(1, 0, at(381))));
  rows.push_back(
      make_row(info(), settings, CopyMethod::sm_copy, Direction::uni, 2, measured(0, 1, at(420))));
  rows.push_back(make_row(info(), settings, CopyMethod::copy_engine, Direction::all, 2,
                          measured(0, 1, at(370))));
  rows.push_back(make_row(info(), settings, CopyMethod::copy_engine, Direction::all, 2,
                          measured(1, 0, at(371))));
  return rows;
}

// The whitespace-separated cells of the line starting with `label`, after it.
std::vector<std::string> row_cells(const std::string& text, const std::string& label) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(label + " ", 0) != 0) continue;
    std::istringstream words(line.substr(label.size()));
    std::vector<std::string> cells;
    for (std::string word; words >> word;) cells.push_back(word);
    return cells;
  }
  return {};
}

TEST(LinkPeakOutput, MatrixHasSourceRowsAndDestinationColumns) {
  const std::string matrix = format_bandwidth_matrix(sample_rows(), "copy_engine", "uni", 3);
  EXPECT_EQ(row_cells(matrix, "src\\dst"), (std::vector<std::string>{"GPU0", "GPU1", "GPU2"}))
      << matrix;
  EXPECT_EQ(row_cells(matrix, "GPU0"), (std::vector<std::string>{"-", "390.0", "n/a"})) << matrix;
  EXPECT_EQ(row_cells(matrix, "GPU1"), (std::vector<std::string>{"395.0", "-", "n/a"})) << matrix;
  EXPECT_EQ(row_cells(matrix, "GPU2"), (std::vector<std::string>{"n/a", "n/a", "-"})) << matrix;
  const std::string both = format_bandwidth_matrix(sample_rows(), "copy_engine", "bi", 2);
  EXPECT_NE(both.find("380.0"), std::string::npos) << both;
  EXPECT_NE(both.find("381.0"), std::string::npos) << both;
  EXPECT_EQ(both.find("390.0"), std::string::npos) << both;
}

TEST(LinkPeakOutput, RingAndSummary) {
  EXPECT_EQ(format_ring(sample_rows(), "copy_engine"), "0->1 370.0, 1->0 371.0");
  EXPECT_EQ(format_ring(sample_rows(), "sm_copy"), "n/a");
  const std::string summary = link_peak_summary(sample_rows());
  // The copy-engine figure, not the faster sm_copy or both-direction ones.
  EXPECT_EQ(summary.rfind("per-GPU link peak: 395.0 GB/s", 0), 0u) << summary;
  EXPECT_NE(summary.find("best sm_copy one direction: 420.0 GB/s"), std::string::npos) << summary;
  EXPECT_NE(link_peak_summary({}).find("unknown"), std::string::npos);
}

TEST(LinkPeakOutput, RowsReadBackThroughTheReportReader) {
  const std::string path = std::string(::testing::TempDir()) + "collbench_" +
                           std::to_string(::getpid()) + "_linkpeak_rows.csv";
  const std::vector<report::ReportRow> rows = sample_rows();
  {
    report::CsvWriter writer(path);
    for (const report::ReportRow& row : rows) writer.write(row);
  }
  EXPECT_EQ(report::read_report(path).rows.size(), rows.size());  // valid, no duplicate keys
  EXPECT_NEAR(read_link_peak_gbps(path), 395.0, 1e-3);            // CSV keeps 3 decimals
  std::remove(path.c_str());
}

}  // namespace
}  // namespace collbench::link_peak
