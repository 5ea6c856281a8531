// `collreport nccl-tests`: nccl-tests' runs as report rows (names, placements, settings, repeats,
// what is left out), the --config check, and the command line.
#include "nccl_tests/nccl_tests_rows.hpp"

#include <gtest/gtest.h>

#include "collreport/commands/cli_run.hpp"
#include "collreport/nccl_tests/nccl_tests_test_support.hpp"
#include "reports/nccl_tests_output.hpp"
#include "rows/merge.hpp"
#include "support/csv_text.hpp"

namespace collbench::collreport {
namespace {

using fixtures::nccl_tests_fixture;
using fixtures::nccl_tests_fixture_report;
using fixtures::nccl_tests_fixture_text;
using report::ReportRow;

constexpr const char* kTimestamp = "2026-11-22T10:00:00Z";

// The rows of nccl-tests output `text` (named "out.txt"), and the converter's warnings.
NcclTestsConverter convert_text(const std::string& text, const std::string& config = "") {
  NcclTestsConverter converter(config);
  converter.add(report::parse_nccl_tests_output("out.txt", text), kTimestamp);
  return converter;
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
    text.replace(at, from.size(), to);
    at += to.size();
  }
  return text;
}

TEST(NcclTestsRows, TwoRowsPerDataLineWithTheRunsSettings) {
  const report::Report report =
      nccl_tests_fixture_report("all_reduce_8gpus_c1.txt", "register=local");
  ASSERT_EQ(report.rows.size(), 18u);
  const ReportRow& out_of_place = report.rows[0].row;
  const ReportRow& in_place = report.rows[1].row;
  EXPECT_EQ(report.rows[0].line, 20u);  // the nccl-tests line, for messages
  EXPECT_EQ(report.rows[1].line, 20u);
  EXPECT_EQ(out_of_place.timestamp, kTimestamp);
  EXPECT_EQ(out_of_place.origin.host, "gpu-node-07");
  EXPECT_EQ(out_of_place.origin.gpu_name, "NVIDIA H200");
  EXPECT_EQ(out_of_place.origin.nccl_version, "2.28.3");
  EXPECT_EQ(out_of_place.origin.launch_mode, "single_process");
  EXPECT_EQ(out_of_place.origin.nodes, 1);
  EXPECT_EQ(out_of_place.op, "all_reduce");
  EXPECT_EQ(out_of_place.algo, "nccl-tests");
  EXPECT_EQ(out_of_place.ranks, 8);
  EXPECT_EQ(out_of_place.dtype, "float");
  EXPECT_EQ(out_of_place.redop, "sum");
  EXPECT_EQ(out_of_place.root, -1);
  EXPECT_FALSE(out_of_place.in_place);
  EXPECT_TRUE(in_place.in_place);
  EXPECT_EQ(out_of_place.bytes, 8u);
  EXPECT_EQ(out_of_place.count, 2u);
  EXPECT_EQ(out_of_place.warmup, 5);
  EXPECT_EQ(out_of_place.iters, 20);
  EXPECT_EQ(out_of_place.agg_iters, 1);
  EXPECT_EQ(out_of_place.graph, 0);
  EXPECT_EQ(out_of_place.repeat, 0);
  EXPECT_EQ(out_of_place.config, "register=local");
  EXPECT_EQ(out_of_place.time.samples, 0);
  EXPECT_EQ(out_of_place.stop, report::kStopFixed);
  EXPECT_EQ(out_of_place.time.confidence_pct, 0);
  EXPECT_FALSE(out_of_place.has_interval());
  EXPECT_DOUBLE_EQ(out_of_place.time.mean_us, 17.85);
  EXPECT_DOUBLE_EQ(in_place.time.mean_us, 17.62);
  EXPECT_EQ(out_of_place.time.p50_us, 0);  // nccl-tests prints no median
  EXPECT_EQ(out_of_place.status, report::kStatusOk);
  EXPECT_EQ(out_of_place.extra,
            "nccl_tests=2.19.6;threads=8;gpus_per_thread=1;processes=1;groups=1;validation=1");
  const ReportRow& largest = report.rows[16].row;
  EXPECT_EQ(largest.bytes, 134217728u);
  EXPECT_DOUBLE_EQ(largest.time.mean_us, 773.5);
  EXPECT_DOUBLE_EQ(largest.algbw_gbps, 173.52);
  EXPECT_DOUBLE_EQ(largest.busbw_gbps, 303.66);
  EXPECT_EQ(largest.wrong_elements, 0u);
}

TEST(NcclTestsRows, ProcessesUncheckedLinesAndOpsWithoutReduction) {
  const report::Report report = nccl_tests_fixture_report("all_gather_2procs_c0.txt");
  ASSERT_EQ(report.rows.size(), 12u);
  for (const report::ReportLine& line : report.rows) {
    EXPECT_EQ(line.row.op, "all_gather");
    EXPECT_EQ(line.row.redop, "none");
    EXPECT_EQ(line.row.wrong_elements, 0u);
    EXPECT_EQ(line.row.origin.launch_mode, "mpi");
    EXPECT_EQ(line.row.extra,
              "nccl_tests=2.19.6;threads=1;gpus_per_thread=1;processes=2;groups=1;validation=0");
  }
}

TEST(NcclTestsRows, RootsSendrecvRepeatsAndPerIterationTimes) {
  const report::Report report = nccl_tests_fixture_report("broadcast_then_sendrecv.txt");
  ASSERT_EQ(report.rows.size(), 10u);
  EXPECT_EQ(report.rows[0].row.op, "broadcast");
  EXPECT_EQ(report.rows[0].row.root, 1);
  EXPECT_EQ(report.rows[0].row.redop, "none");
  const ReportRow& sendrecv = report.rows[2].row;
  EXPECT_EQ(sendrecv.op, "sendrecv");
  EXPECT_EQ(sendrecv.redop, "none");  // printed "sum"
  EXPECT_EQ(sendrecv.root, -1);
  EXPECT_DOUBLE_EQ(sendrecv.time.mean_us, 9.81);
  EXPECT_DOUBLE_EQ(sendrecv.time.min_us, 8.83);
  EXPECT_DOUBLE_EQ(sendrecv.time.max_us, 13.73);
  EXPECT_DOUBLE_EQ(sendrecv.time.p99_us, 12.75);
  EXPECT_DOUBLE_EQ(sendrecv.time.cv_pct, 4.2);
  // The second cycle (-N 2) measures the same cases again: repeat 1.
  std::vector<int> repeats;
  for (std::size_t i = 2; i < report.rows.size(); ++i) repeats.push_back(report.rows[i].row.repeat);
  EXPECT_EQ(repeats, (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_DOUBLE_EQ(report.rows[6].row.time.mean_us, 9.91);
}

TEST(NcclTestsRows, AlltoallvSplitAndAFileAddedTwice) {
  const report::Report alltoallv =
      nccl_tests_fixture_report("alltoallv_4gpus.txt", "a2av_spread=1");
  ASSERT_EQ(alltoallv.rows.size(), 6u);
  EXPECT_EQ(alltoallv.rows[0].row.op, "alltoallv");
  EXPECT_EQ(alltoallv.rows[0].row.dtype, "bfloat16");
  EXPECT_EQ(alltoallv.rows[0].row.config, "a2av_spread=1");

  const report::NcclTestsOutput split =
      report::read_nccl_tests_output(nccl_tests_fixture("all_reduce_split_mod2.txt"));
  NcclTestsConverter converter("split=MOD 2;groups=2");
  converter.add(split, kTimestamp);
  EXPECT_TRUE(converter.warnings().empty());
  EXPECT_EQ(converter.report().rows.at(0).row.ranks, 4);  // the Rank lines, every group's
  EXPECT_EQ(converter.report().rows.at(0).row.extra,
            "nccl_tests=2.19.6;threads=1;gpus_per_thread=1;processes=4;groups=2;validation=1");
  converter.add(split, kTimestamp);
  ASSERT_EQ(converter.report().rows.size(), 12u);
  EXPECT_EQ(converter.report().rows[5].row.repeat, 0);
  EXPECT_EQ(converter.report().rows[6].row.repeat, 1);

  NcclTestsConverter without_split("");
  without_split.add(split, kTimestamp);
  ASSERT_EQ(without_split.warnings().size(), 1u);
  EXPECT_EQ(without_split.warnings()[0],
            nccl_tests_fixture("all_reduce_split_mod2.txt") +
                ":6: the Rank lines name 2 groups (NCCL_TESTS_SPLIT), but --config names no "
                "split=: the rows match collbench rows measured without a split");
}

// A written report reads back as the same rows, and converted rows pass every column's check.
TEST(NcclTestsRows, WrittenReportReadsBack) {
  for (const char* name : {"all_reduce_8gpus_c1.txt", "all_gather_2procs_c0.txt",
                           "alltoallv_4gpus.txt", "broadcast_then_sendrecv.txt"}) {
    const report::Report converted = nccl_tests_fixture_report(name, "split=MOD 2;groups=2");
    const report::Report read = report::parse_report("r.csv", report_csv(converted));
    ASSERT_EQ(read.rows.size(), converted.rows.size()) << name;
    for (std::size_t i = 0; i < read.rows.size(); ++i) {
      EXPECT_EQ(report::row_key(read.rows[i].row), report::row_key(converted.rows[i].row));
      EXPECT_DOUBLE_EQ(read.rows[i].row.time.mean_us, converted.rows[i].row.time.mean_us);
      EXPECT_EQ(read.rows[i].row.extra, converted.rows[i].row.extra);
    }
  }
}

TEST(NcclTestsRows, TypesAndReductionsCollbenchLacksAreLeftOutWithAWarning) {
  std::string text = nccl_tests_fixture_text("all_reduce_8gpus_c1.txt");
  text =
      replace_all(text, "     float     sum      -1    17.", "    f8e4m3     sum      -1    17.");
  text =
      replace_all(text, "   float     sum      -1    19.96", "   float  mulsum      -1    19.96");
  const NcclTestsConverter converter = convert_text(text);
  EXPECT_EQ(converter.report().rows.size(), 18u - 3 * 2);  // 8 B and 64 B fp8, 4 KiB mulsum
  ASSERT_EQ(converter.warnings().size(), 2u);
  EXPECT_EQ(converter.warnings()[0],
            "out.txt:23: 1 data line(s) of reduction mulsum left out, the first here: collbench "
            "does not measure it");
  EXPECT_EQ(converter.warnings()[1],
            "out.txt:20: 2 data line(s) of type f8e4m3 left out, the first here: collbench does "
            "not measure it");
}

TEST(NcclTestsRows, BinariesWithoutACollbenchOpAreRefused) {
  const std::string text = replace_all(nccl_tests_fixture_text("all_reduce_8gpus_c1.txt"),
                                       "all_reduce_perf", "hypercube_perf");
  try {
    convert_text(text);
    ADD_FAILURE() << "converted";
  } catch (const report::ReportError& error) {
    EXPECT_EQ(std::string(error.what()),
              "out.txt:2: 'hypercube_perf' has no collbench counterpart (collbench reads "
              "all_reduce_perf, all_gather_perf, reduce_scatter_perf, broadcast_perf, reduce_perf, "
              "alltoall_perf, alltoallv_perf, gather_perf, scatter_perf, sendrecv_perf)");
  }
}

TEST(NcclTestsRows, ConfigIsKeyValuePairs) {
  for (const char* good : {"", "register=local", "split=MOD 2;groups=2", "a2av_spread=1",
                           "register=symmetric;timing=loop"}) {
    EXPECT_NO_THROW(check_config_text(good, "--config")) << good;
  }
  for (const char* bad :
       {"register local", "=local", "Register=local", "register=", "a=1;;b=2", "a=1;", "a=\x01"}) {
    EXPECT_THROW(check_config_text(bad, "--config"), std::invalid_argument) << bad;
  }
  try {
    check_config_text("register local", "--config");
  } catch (const std::invalid_argument& error) {
    EXPECT_EQ(std::string(error.what()),
              "--config 'register local' is not key=value;... with keys of a-z, 0-9, _ (e.g. "
              "register=local or split=MOD 2;groups=2)");
  }
}

TEST(NcclTestsRows, FileModificationTimeInUtc) {
  const std::string path = fixtures::write_temp_file("mtime.txt", "x");
  const std::string utc = file_modified_utc(path);
  EXPECT_EQ(utc.size(), 20u);
  EXPECT_EQ(utc[10], 'T');
  EXPECT_EQ(utc.back(), 'Z');
  EXPECT_THROW(file_modified_utc(path + ".absent"), report::ReportError);
}

TEST(NcclTestsCli, WritesAReportThatSummaryReads) {
  const std::string csv = ::testing::TempDir() + "collreport_nccl_tests_cli.csv";
  const CliResult result = run_cli({"nccl-tests", nccl_tests_fixture("all_reduce_8gpus_c1.txt"),
                                    nccl_tests_fixture("alltoallv_4gpus.txt"), "--csv", csv,
                                    "--config", "register=local"});
  ASSERT_EQ(result.code, 0) << result.err;
  EXPECT_EQ(result.out,
            "collreport nccl-tests: 24 rows from 2 run(s) in 2 file(s) to " + csv + "\n");
  EXPECT_EQ(result.err, "");
  const report::Report read = report::read_report(csv);
  EXPECT_EQ(read.rows.size(), 24u);
  EXPECT_EQ(read.rows.back().row.op, "alltoallv");
  EXPECT_EQ(read.rows.back().row.config, "register=local");
  const CliResult summary = run_cli({"summary", csv});
  EXPECT_EQ(summary.code, 0) << summary.err;
  EXPECT_NE(summary.out.find("nccl-tests"), std::string::npos) << summary.out;
}

TEST(NcclTestsCli, StandardOutputWarningsAndBadInput) {
  const CliResult to_stdout =
      run_cli({"nccl-tests", nccl_tests_fixture("all_reduce_split_mod2.txt")});
  EXPECT_EQ(to_stdout.code, 0);
  EXPECT_EQ(report::parse_report("stdout", to_stdout.out).rows.size(), 6u);
  EXPECT_NE(to_stdout.err.find("collreport: warning: "), std::string::npos) << to_stdout.err;

  const CliResult truncated = run_cli({"nccl-tests", nccl_tests_fixture("truncated.txt")});
  EXPECT_EQ(truncated.code, 2);
  EXPECT_EQ(truncated.out, "");
  EXPECT_EQ(truncated.err, "collreport: error: " + nccl_tests_fixture("truncated.txt") +
                               ":27: a data line of 7 fields where the column header has 13 (cut "
                               "off?): '    16777216       4194304     float     sum      -1   "
                               "148.90  112.67 '\n");

  const CliResult garbage = run_cli({"nccl-tests", nccl_tests_fixture("garbage_line.txt")});
  EXPECT_EQ(garbage.code, 2);
  EXPECT_NE(garbage.err.find("garbage_line.txt:23: not a line nccl-tests prints"),
            std::string::npos)
      << garbage.err;

  const CliResult bad_config = run_cli(
      {"nccl-tests", nccl_tests_fixture("all_reduce_8gpus_c1.txt"), "--config", "register local"});
  EXPECT_EQ(bad_config.code, 2);
  EXPECT_EQ(bad_config.err.rfind("collreport: error: --config 'register local' is not", 0), 0u);

  const CliResult absent = run_cli({"nccl-tests", "/nonexistent/out.txt"});
  EXPECT_EQ(absent.code, 2);
  EXPECT_EQ(absent.err,
            "collreport: error: /nonexistent/out.txt: cannot open: No such file or "
            "directory\n");
}

}  // namespace
}  // namespace collbench::collreport
