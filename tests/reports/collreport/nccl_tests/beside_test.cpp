// `collreport beside`: matching collbench's NCCL rows with nccl-tests', the verdict at every
// boundary of every tolerance, what is refused, the output and the exit codes.
#include "nccl_tests/beside.hpp"

#include <gtest/gtest.h>

#include "collreport/commands/cli_run.hpp"
#include "collreport/nccl_tests/nccl_tests_test_support.hpp"
#include "compare/compare.hpp"
#include "nccl_tests/beside_output.hpp"
#include "rows/merge.hpp"
#include "support/csv_text.hpp"
#include "support/fixture_reports.hpp"

namespace collbench::collreport {
namespace {

using fixtures::mean_row;
using fixtures::report_of;
using report::ReportRow;

constexpr std::uint64_t kKiB = 1024;
constexpr std::uint64_t kMiB = kKiB * 1024;

// One matched pair judged with `options`.
BesideRow judge_pair(const ReportRow& collbench, const ReportRow& nccl_tests,
                     const BesideOptions& options = {}) {
  const Beside beside =
      beside_reports(report_of("c.csv", {collbench}), report_of("n.csv", {nccl_tests}), options);
  EXPECT_EQ(beside.rows.size(), 1u);
  return beside.rows.at(0);
}

// The verdict for collbench's (time, busbw) against nccl-tests' at `bytes`; throws
// NothingComparedError when the pair is not judged.
BesideVerdict verdict_at(std::uint64_t bytes, double collbench_us, double nccl_tests_us,
                         double collbench_gbps = 1, double nccl_tests_gbps = 1,
                         const BesideOptions& options = {}) {
  return judge_pair(mean_row("nccl", bytes, collbench_us, collbench_gbps),
                    mean_row("nccl-tests", bytes, nccl_tests_us, nccl_tests_gbps), options)
      .verdict;
}

// The collbench side of nccl-tests rows: the same keys, algo nccl, times scaled by `time_scale`
// and busbw by its inverse.
report::Report collbench_like(const report::Report& nccl_tests, double time_scale) {
  std::vector<ReportRow> rows;
  for (const report::ReportLine& line : nccl_tests.rows) {
    ReportRow row = line.row;
    row.algo = "nccl";
    row.time.mean_us *= time_scale;
    row.busbw_gbps /= time_scale;
    rows.push_back(row);
  }
  return report_of("collbench.csv", rows);
}

TEST(Beside, BusbwWithinThreePercentFromSixtyFourMiBInclusive) {
  for (const double busbw : {103.0, 97.0, 100.0}) {
    EXPECT_EQ(verdict_at(64 * kMiB, 500, 500, busbw, 100), BesideVerdict::kWithin) << busbw;
  }
  for (const double busbw : {103.01, 96.99}) {
    EXPECT_EQ(verdict_at(64 * kMiB, 500, 500, busbw, 100), BesideVerdict::kOutside) << busbw;
  }
  // Only busbw is judged there: a time 10% off with busbw equal (as written) is within.
  EXPECT_EQ(verdict_at(1024 * kMiB, 550, 500, 100, 100), BesideVerdict::kWithin);
  const BesideRow row = judge_pair(mean_row("nccl", 64 * kMiB, 500, 103.5),
                                   mean_row("nccl-tests", 64 * kMiB, 500, 100));
  EXPECT_TRUE(row.busbw_judged);
  EXPECT_FALSE(row.time_judged);
  EXPECT_NEAR(row.busbw_change, 0.035, 1e-12);
}

TEST(Beside, TimeWithinHalfAMicrosecondOrFivePercentBelowSixtyFourKiB) {
  const std::uint64_t below = 64 * kKiB - 1;
  EXPECT_EQ(verdict_at(below, 10.5, 10.0), BesideVerdict::kWithin);    // +0.5 us
  EXPECT_EQ(verdict_at(below, 9.5, 10.0), BesideVerdict::kWithin);     // -0.5 us
  EXPECT_EQ(verdict_at(below, 10.51, 10.0), BesideVerdict::kOutside);  // +0.51 us, +5.1%
  EXPECT_EQ(verdict_at(below, 9.49, 10.0), BesideVerdict::kOutside);
  EXPECT_EQ(verdict_at(below, 21.0, 20.0), BesideVerdict::kWithin);  // 1 us but +5%
  EXPECT_EQ(verdict_at(below, 19.0, 20.0), BesideVerdict::kWithin);  // -5%
  EXPECT_EQ(verdict_at(below, 21.01, 20.0), BesideVerdict::kOutside);
  EXPECT_EQ(verdict_at(below, 18.99, 20.0), BesideVerdict::kOutside);
  EXPECT_EQ(verdict_at(8, 12.34, 11.84), BesideVerdict::kWithin);  // 0.5 us up to binary rounding
  // busbw is not judged there: a busbw 50% off (it is tiny at such sizes) does not matter.
  EXPECT_EQ(verdict_at(8, 10.0, 10.0, 0.001, 0.002), BesideVerdict::kWithin);
  const BesideRow row =
      judge_pair(mean_row("nccl", 4096, 10.4, 1), mean_row("nccl-tests", 4096, 10, 1));
  EXPECT_TRUE(row.time_judged);
  EXPECT_FALSE(row.busbw_judged);
  EXPECT_NEAR(row.time_difference_us, 0.4, 1e-12);
  EXPECT_NEAR(row.time_change, 0.04, 1e-12);
}

TEST(Beside, SizesBetweenAreShownNotJudged) {
  // 64 KiB and 64 MiB - 1 lie between the two tolerances; with nothing else judged, beside
  // refuses to vouch.
  for (const std::uint64_t bytes : {64 * kKiB, 64 * kMiB - 1}) {
    EXPECT_THROW(verdict_at(bytes, 100, 10), NothingComparedError) << bytes;
  }
  const Beside beside = beside_reports(
      report_of("c.csv", {mean_row("nccl", 8, 10, 1), mean_row("nccl", kMiB, 100, 10)}),
      report_of("n.csv", {mean_row("nccl-tests", 8, 10, 1), mean_row("nccl-tests", kMiB, 10, 100)}),
      {});
  ASSERT_EQ(beside.rows.size(), 2u);
  EXPECT_EQ(beside.rows[1].verdict, BesideVerdict::kNotJudged);
  EXPECT_EQ(beside.rows[1].note, "between 64 KiB and 64 MiB");
  EXPECT_EQ(beside.exit_code(), 0);
}

TEST(Beside, OptionsMoveTheBoundaries) {
  BesideOptions options;
  options.busbw_tolerance = 0.05;
  options.busbw_from_bytes = kMiB;
  options.time_tolerance_us = 0;
  options.time_tolerance = 0.01;
  options.time_below_bytes = 8 * kKiB;
  EXPECT_EQ(verdict_at(kMiB, 1, 1, 105, 100, options), BesideVerdict::kWithin);
  EXPECT_EQ(verdict_at(kMiB, 1, 1, 105.1, 100, options), BesideVerdict::kOutside);
  EXPECT_EQ(verdict_at(8 * kKiB - 1, 10.1, 10, 1, 1, options), BesideVerdict::kWithin);
  EXPECT_EQ(verdict_at(8 * kKiB - 1, 10.11, 10, 1, 1, options), BesideVerdict::kOutside);
  // Overlapping ranges judge both: busbw within but time outside is outside.
  options.busbw_from_bytes = 1;
  EXPECT_EQ(verdict_at(4096, 10.5, 10, 100, 100, options), BesideVerdict::kOutside);
  EXPECT_EQ(verdict_at(4096, 10.05, 10, 100, 100, options), BesideVerdict::kWithin);
}

TEST(Beside, MatchesEveryKeyButAlgo) {
  ReportRow in_place = mean_row("nccl", 8, 10, 1);
  in_place.in_place = true;
  ReportRow ring = mean_row("ring", 8, 99, 1);  // another algo of collbench: not part of it
  ReportRow other_config = mean_row("nccl-tests", 8, 10, 1);
  other_config.config = "register=local";
  const Beside beside =
      beside_reports(report_of("c.csv", {mean_row("nccl", 8, 10, 1), in_place, ring}),
                     report_of("n.csv", {mean_row("nccl-tests", 8, 10.2, 1), other_config}), {});
  ASSERT_EQ(beside.rows.size(), 3u);
  EXPECT_EQ(beside.count(BesideVerdict::kWithin), 1u);
  EXPECT_EQ(beside.count(BesideVerdict::kUnmatched), 2u);
  EXPECT_EQ(beside.only_in_collbench(), 1u);
  EXPECT_EQ(beside.only_in_nccl_tests(), 1u);
  for (const BesideRow& row : beside.rows) {
    EXPECT_TRUE(row.key.algo.empty());
    if (row.verdict != BesideVerdict::kUnmatched) continue;
    EXPECT_EQ(row.note, row.collbench ? "collbench only" : "nccl-tests only");
    EXPECT_EQ(row.collbench ? row.key.in_place : !row.key.config.empty(), true);
  }
}

TEST(Beside, UnmeasuredRowsAndNotes) {
  ReportRow skipped = mean_row("nccl", 16, 0, 0);
  skipped.status = report::kStatusSkipped;
  skipped.reason = "needs 16 GPUs";
  ReportRow wrong = mean_row("nccl", 8, 10, 1);
  wrong.wrong_elements = 3;
  ReportRow cpu_time = mean_row("nccl-tests", 8, 10, 1);
  cpu_time.extra = "nccl_tests=2.19.6;time=cputime";
  ReportRow zero_busbw = mean_row("nccl-tests", 128 * kMiB, 100, 0);
  const Beside beside = beside_reports(
      report_of("c.csv", {wrong, skipped, mean_row("nccl", 128 * kMiB, 100, 10)}),
      report_of("n.csv", {cpu_time, mean_row("nccl-tests", 16, 10, 1), zero_busbw}), {});
  ASSERT_EQ(beside.rows.size(), 3u);
  EXPECT_EQ(beside.rows[0].verdict, BesideVerdict::kWithin);
  EXPECT_EQ(beside.rows[0].note, "collbench: 3 wrong elements; nccl-tests time is CPU time (-C 1)");
  EXPECT_EQ(beside.rows[1].verdict, BesideVerdict::kNotMeasured);
  EXPECT_EQ(beside.rows[1].note, "skipped in collbench: needs 16 GPUs");
  EXPECT_EQ(beside.rows[2].verdict, BesideVerdict::kNotJudged);
  EXPECT_EQ(beside.rows[2].note, "busbw 0 in nccl-tests: not judged");
}

TEST(Beside, RefusesWhatItCannotJudge) {
  const report::Report collbench = report_of("c.csv", {mean_row("nccl", 8, 10, 1)});
  const report::Report nccl_tests = report_of("n.csv", {mean_row("nccl-tests", 8, 10, 1)});
  try {
    beside_reports(collbench, report_of("n.csv", {mean_row("nccl", 8, 10, 1)}), {});
    ADD_FAILURE();
  } catch (const report::ReportError& error) {
    EXPECT_EQ(std::string(error.what()),
              "n.csv: no row of algo nccl-tests (written by collreport nccl-tests) in 1 rows");
  }
  try {
    beside_reports(report_of("c.csv", {mean_row("ring", 8, 10, 1)}), nccl_tests, {});
    ADD_FAILURE();
  } catch (const report::ReportError& error) {
    EXPECT_EQ(std::string(error.what()),
              "c.csv: no row of algo nccl (collbench's NCCL rows) in 1 rows");
  }
  try {
    beside_reports(collbench, report_of("n.csv", {mean_row("nccl-tests", 16, 10, 1)}), {});
    ADD_FAILURE();
  } catch (const NothingComparedError& error) {
    EXPECT_EQ(std::string(error.what()),
              "nothing beside: no collbench nccl row matches an nccl-tests row (1 collbench only, "
              "1 nccl-tests only; rows match on op, ranks, dtype, redop, root, in_place, bytes, "
              "graph, agg_iters, config, repeat: is --config the same on both sides?)");
  }
  ReportRow skipped = mean_row("nccl", 8, 0, 0);
  skipped.status = report::kStatusSkipped;
  EXPECT_THROW(beside_reports(report_of("c.csv", {skipped}), nccl_tests, {}), NothingComparedError);
}

TEST(Beside, TheAllReduceFixtureAgainstItself) {
  const report::Report nccl_tests = fixtures::nccl_tests_fixture_report("all_reduce_8gpus_c1.txt");
  const Beside same = beside_reports(collbench_like(nccl_tests, 1.0), nccl_tests, {});
  // 8 B to 32 KiB by time, 128 MiB by busbw, both placements; 256 KiB to 16 MiB between.
  EXPECT_EQ(same.count(BesideVerdict::kWithin), 12u);
  EXPECT_EQ(same.count(BesideVerdict::kNotJudged), 6u);
  EXPECT_EQ(same.exit_code(), 0);
  // 4% slower: busbw is outside at 128 MiB, times stay within (5%) below 64 KiB.
  const Beside slower = beside_reports(collbench_like(nccl_tests, 1.04), nccl_tests, {});
  EXPECT_EQ(slower.count(BesideVerdict::kOutside), 2u);
  EXPECT_EQ(slower.count(BesideVerdict::kWithin), 10u);
  EXPECT_EQ(slower.exit_code(), 1);
  EXPECT_EQ(beside_verdict_line(slower),
            "FAIL: 10 within, 2 outside; 6 not judged, 0 not measured, 0 unmatched (0 collbench "
            "only, 0 nccl-tests only)");
}

TEST(BesideOutput, TablesPerCurveInTextAndMarkdown) {
  const report::Report nccl_tests = fixtures::nccl_tests_fixture_report("all_reduce_8gpus_c1.txt");
  report::Report collbench = collbench_like(nccl_tests, 1.02);
  collbench.rows.push_back({mean_row("nccl", 8, 10, 1), 40});  // a dtype nccl-tests did not run
  collbench.rows.back().row.dtype = "half";
  const Beside beside = beside_reports(collbench, nccl_tests, {});
  const std::string text = beside_text(beside, collbench, nccl_tests, {});
  EXPECT_EQ(text.rfind("collreport beside: PASS: 12 within, 0 outside; 6 not judged, 0 not "
                       "measured, 1 unmatched (1 collbench only, 0 nccl-tests only)\n",
                       0),
            0u)
      << text;
  EXPECT_NE(text.find("nccl-tests: all_reduce_8gpus_c1.txt (NVIDIA H200, 8 GPUs, NCCL 2.28.3, "
                      "2026-11-22, 18 nccl-tests rows; nccl-tests 2.19.6 -t 8 -g 1, 1 process)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("busbw within ±3% from 64 MiB; mean time within ±0.5 us or ±5% below 64 "
                      "KiB"),
            std::string::npos);
  EXPECT_NE(text.find("\nall_reduce, 8 ranks, float\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nall_reduce, 8 ranks, float, in_place\n"), std::string::npos) << text;
  EXPECT_NE(text.find("collbench only: all_reduce, 8 ranks, half (1 rows)"), std::string::npos);
  // The 128 MiB out-of-place row: 773.5 us * 1.02, busbw 303.66 / 1.02.
  EXPECT_NE(text.find("128 MiB          788.97           773.50       +15.47   +2.0%            "
                      "297.7             303.7    -2.0%  busbw      within"),
            std::string::npos)
      << text;

  const std::string markdown = beside_markdown(beside, collbench, nccl_tests, {});
  EXPECT_EQ(markdown.rfind("### collreport beside: PASS: 12 within", 0), 0u) << markdown;
  EXPECT_NE(markdown.find("\n#### all_reduce, 8 ranks, float\n\n| size | collbench (us) |"),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("| 8 B | 18.21 | 17.85 | +0.36 | +2.0% |"), std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("#### Curves on one side only\n\n- collbench only: all_reduce, 8 ranks, "
                          "half (1 rows)"),
            std::string::npos);
}

// collbench's and nccl-tests' reports as files, for the command line.
struct BesideFiles {
  std::string collbench;
  std::string nccl_tests;
};

BesideFiles beside_files(double time_scale) {
  const report::Report nccl_tests = fixtures::nccl_tests_fixture_report("all_reduce_8gpus_c1.txt");
  return {fixtures::write_temp_file("collbench.csv",
                                    report_csv(collbench_like(nccl_tests, time_scale))),
          fixtures::write_temp_file("nccl_tests.csv", report_csv(nccl_tests))};
}

TEST(BesideCli, ExitCodesAndMarkdown) {
  const BesideFiles same = beside_files(1.0);
  const std::string markdown = ::testing::TempDir() + "collreport_beside.md";
  const CliResult pass =
      run_cli({"beside", same.collbench, same.nccl_tests, "--markdown", markdown});
  EXPECT_EQ(pass.code, 0) << pass.err;
  EXPECT_EQ(pass.out.rfind("collreport beside: PASS: 12 within", 0), 0u) << pass.out;
  EXPECT_EQ(fixtures::read_file(markdown).rfind("### collreport beside: PASS", 0), 0u);

  const BesideFiles slower = beside_files(1.04);
  const CliResult fail = run_cli({"beside", slower.collbench, slower.nccl_tests});
  EXPECT_EQ(fail.code, 1);
  EXPECT_EQ(fail.out.rfind("collreport beside: FAIL: 10 within, 2 outside", 0), 0u) << fail.out;
  // A wider busbw tolerance passes it.
  EXPECT_EQ(run_cli({"beside", slower.collbench, slower.nccl_tests, "--bw-tolerance", "5"}).code,
            0);
  // A narrower time tolerance fails the small sizes too.
  const CliResult narrow = run_cli({"beside", slower.collbench, slower.nccl_tests,
                                    "--time-tolerance-us", "0", "--time-tolerance-pct", "1%"});
  EXPECT_EQ(narrow.code, 1);
  EXPECT_EQ(narrow.out.rfind("collreport beside: FAIL: 0 within, 12 outside", 0), 0u) << narrow.out;
  // Moving the boundaries: every size judged by time (4% and more than 0.5 us off), none by busbw.
  const CliResult by_time = run_cli({"beside", slower.collbench, slower.nccl_tests, "--time-below",
                                     "1G", "--bw-from", "1G", "--time-tolerance-pct", "3"});
  EXPECT_EQ(by_time.code, 1);
  EXPECT_EQ(by_time.out.rfind("collreport beside: FAIL: 0 within, 18 outside; 0 not judged", 0), 0u)
      << by_time.out;
}

TEST(BesideCli, BadInputExitsTwo) {
  const BesideFiles files = beside_files(1.0);
  struct Case {
    std::vector<std::string> args;
    std::string error;
  };
  const std::vector<Case> cases = {
      {{"beside", files.collbench, files.nccl_tests, "--bw-tolerance", "0"},
       "collreport: error: --bw-tolerance '0' is not a percentage between 0 and 100 (e.g. 5 or "
       "5%)\n"},
      {{"beside", files.collbench, files.nccl_tests, "--time-tolerance-us", "-1"},
       "collreport: error: --time-tolerance-us '-1' is not a time of 0 us or more\n"},
      {{"beside", files.collbench, files.nccl_tests, "--bw-from", "64Q"},
       "collreport: error: --bw-from '64Q' has an unknown suffix (expected K, M, G or T)\n"},
      {{"beside", files.collbench, files.nccl_tests, "--time-below", ""},
       "collreport: error: --time-below '' is not a byte size (expected e.g. 8, 64K, 1M, 8G)\n"},
      {{"beside", files.nccl_tests, files.nccl_tests},
       "collreport: error: " + files.nccl_tests +
           ": no row of algo nccl (collbench's NCCL rows) in 18 rows\n"},
      {{"beside", files.collbench, "/nonexistent.csv"},
       "collreport: error: /nonexistent.csv: cannot open: No such file or directory\n"},
  };
  for (const Case& c : cases) {
    const CliResult result = run_cli(c.args);
    EXPECT_EQ(result.code, 2) << c.error;
    EXPECT_EQ(result.err, c.error);
    EXPECT_EQ(result.out, "");
  }
  const std::string other_config = fixtures::write_temp_file(
      "other_config.csv",
      report_csv(fixtures::nccl_tests_fixture_report("all_reduce_8gpus_c1.txt", "register=local")));
  const CliResult unmatched = run_cli({"beside", files.collbench, other_config});
  EXPECT_EQ(unmatched.code, 2);
  EXPECT_EQ(
      unmatched.err.rfind("collreport: error: nothing beside: no collbench nccl row matches", 0),
      0u)
      << unmatched.err;
}

}  // namespace
}  // namespace collbench::collreport
