// The collreport command line: exit codes 0/1/2 and what reaches stdout, stderr and files.
#include "commands/cli.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "collreport/commands/cli_run.hpp"
#include "support/csv_text.hpp"
#include "support/fixture_reports.hpp"

namespace collbench::collreport {
namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

CliResult run(std::vector<std::string> args) {
  return run_cli(std::move(args));
}

std::string base_file() {
  return fixtures::write_temp_file("base.csv", fixtures::to_csv(fixtures::baseline_rows()));
}

// --version names the build; --help, the tool's and each subcommand's, fits a terminal and lists
// the exit statuses.
TEST(CollreportCli, VersionAndHelp) {
  const CliResult version = run({"--version"});
  EXPECT_EQ(version.code, 0);
  EXPECT_EQ(version.out.rfind("collreport ", 0), 0u) << version.out;
  for (const std::vector<std::string>& words : {std::vector<std::string>{"--help"},
                                                {"compare", "--help"},
                                                {"summary", "--help"},
                                                {"nccl-tests", "--help"},
                                                {"beside", "--help"}}) {
    const CliResult help = run(words);
    EXPECT_EQ(help.code, 0);
    std::size_t longest = 0, begin = 0;
    while (begin < help.out.size()) {
      const std::size_t end = std::min(help.out.find('\n', begin), help.out.size());
      longest = std::max(longest, end - begin);
      begin = end + 1;
    }
    EXPECT_LE(longest, 100u) << help.out;
  }
  EXPECT_NE(run({"--help"}).out.find("Exit status"), std::string::npos);
}

// merge --as-passes and compare --across through the command line: two single-pass runs become
// one of two passes; a protocol A/B pairs row by row only with --across, which refuses a name
// that no row carries.
TEST(CollreportCli, MergeAsPassesAndCompareAcross) {
  std::vector<report::ReportRow> rows = fixtures::baseline_rows();
  const std::string first = fixtures::write_temp_file("run_1.csv", fixtures::to_csv(rows));
  const std::string second = fixtures::write_temp_file("run_2.csv", fixtures::to_csv(rows));
  const std::string merged = ::testing::TempDir() + "runs.csv";
  EXPECT_EQ(run({"merge", first, second}).code, 2);  // the same case twice
  ASSERT_EQ(run({"merge", "--as-passes", first, second, "-o", merged}).code, 0);
  EXPECT_NE(run({"summary", merged}).out.find("2 passes"), std::string::npos)
      << run({"summary", merged}).out;

  for (report::ReportRow& row : rows)
    row.config += row.config.empty() ? "nccl_proto=Simple" : ";nccl_proto=Simple";
  const std::string simple = fixtures::write_temp_file("simple.csv", fixtures::to_csv(rows));
  EXPECT_EQ(run({"compare", first, simple}).code, 2);  // nothing compared
  const CliResult across = run({"compare", "--across", "nccl_proto", first, simple});
  EXPECT_EQ(across.code, 0) << across.err;
  EXPECT_NE(across.out.find("0 only in BASE, 0 only in NEW"), std::string::npos) << across.out;
  const CliResult unknown = run({"compare", "--across", "NCCL_PROTO", first, simple});
  EXPECT_EQ(unknown.code, 2);
  EXPECT_EQ(unknown.err,
            "collreport: error: --across NCCL_PROTO: no row of BASE or NEW has "
            "NCCL_PROTO=VALUE in its config\n");
  EXPECT_EQ(run({"compare", "--across", "nccl_proto=Simple", first, simple}).code, 2);
  EXPECT_EQ(run({"compare", "--across", "", first, simple}).code, 2);
}

TEST(CollreportCli, CompareExitCodes) {
  const std::vector<fixtures::ReportRow> base = fixtures::baseline_rows();
  const std::string base_path = base_file();
  const std::string base_v1 = fixtures::write_temp_file("base_v1.csv", fixtures::to_csv(base, 1));
  const std::string noise = fixtures::write_temp_file(
      "noise.csv", fixtures::to_csv(fixtures::with_noise(base, 0.08, 0.02)));
  const std::string regressed = fixtures::write_temp_file(
      "regressed.csv", fixtures::to_csv(fixtures::with_busbw_regression(base, 0.10, 64 * kMiB)));
  const std::string wrong = fixtures::write_temp_file(
      "wrong.csv", fixtures::to_csv(fixtures::with_wrong_elements(base, 3)));

  for (const std::string& baseline : {base_path, base_v1}) {
    const CliResult pass = run({"compare", baseline, noise});
    EXPECT_EQ(pass.code, 0) << pass.out << pass.err;
    EXPECT_EQ(pass.out.rfind("collreport compare: PASS", 0), 0u) << pass.out;

    const CliResult regression = run({"compare", baseline, regressed});
    EXPECT_EQ(regression.code, 1) << regression.out << regression.err;
    EXPECT_NE(regression.out.find("REGRESSION"), std::string::npos);

    EXPECT_EQ(run({"compare", baseline, wrong}).code, 1);
  }
  // The 10% loss (11.1% in time) passes a minimum effect of 12% (intervals), and a tolerance of
  // 12% (version 1 BASE); each option leaves the other rule alone.
  EXPECT_EQ(run({"compare", "--min-effect", "12%", base_path, regressed}).code, 0);
  EXPECT_EQ(run({"compare", "--tolerance", "12%", base_path, regressed}).code, 1);
  EXPECT_EQ(run({"compare", "--tolerance", "12%", base_v1, regressed}).code, 0);
  EXPECT_EQ(run({"compare", "--min-effect", "12%", base_v1, regressed}).code, 1);
}

TEST(CollreportCli, CompareWritesMarkdownEvenWhenItFails) {
  const std::vector<fixtures::ReportRow> base = fixtures::baseline_rows();
  const std::string regressed = fixtures::write_temp_file(
      "regressed.csv", fixtures::to_csv(fixtures::with_busbw_regression(base, 0.10, 64 * kMiB)));
  const std::string markdown = fixtures::write_temp_file("summary.md", "stale");
  EXPECT_EQ(run({"compare", base_file(), regressed, "--markdown", markdown}).code, 1);
  EXPECT_EQ(fixtures::read_file(markdown).rfind("### collreport compare: FAIL", 0), 0u);
}

TEST(CollreportCli, BadInputExitsTwoWithFileAndLine) {
  std::vector<std::string> lines =
      fixtures::split_lines(fixtures::to_csv(fixtures::baseline_rows()));
  lines[9] = fixtures::with_field(lines[9], "time_us_p50", "n/a");
  const std::string bad = fixtures::write_temp_file("bad.csv", fixtures::join_lines(lines));
  const CliResult result = run({"compare", base_file(), bad});
  EXPECT_EQ(result.code, 2);
  EXPECT_EQ(result.err,
            "collreport: error: " + bad +
                ":10: column 'time_us_p50': 'n/a' is not a plain non-negative decimal number "
                "(like 12.345)\n");
  EXPECT_EQ(run({"summary", bad}).code, 2);
  EXPECT_EQ(run({"merge", bad}).code, 2);
  const std::string empty = fixtures::write_temp_file("empty.csv", "");
  EXPECT_EQ(run({"summary", empty}).err,
            "collreport: error: " + empty + ":1: empty file (no header line)\n");
}

TEST(CollreportCli, BadOptionsExitTwo) {
  const std::string base = base_file();
  for (const char* tolerance : {"0", "-5", "100", "five"}) {
    const CliResult result = run({"compare", "--tolerance", tolerance, base, base});
    EXPECT_EQ(result.code, 2) << tolerance;
    EXPECT_NE(result.err.find("--tolerance"), std::string::npos) << result.err;
  }
  for (const std::string min_effect : {"-3", "abc", "0", "100", "3%%", ""}) {
    const CliResult result = run({"compare", "--min-effect", min_effect, base, base});
    EXPECT_EQ(result.code, 2) << min_effect;
    EXPECT_EQ(result.err, "collreport: error: --min-effect '" + min_effect +
                              "' is not a percentage between 0 and 100 (e.g. 5 or 5%)\n");
    EXPECT_TRUE(result.out.empty()) << min_effect;
  }
  EXPECT_EQ(run({"compare", "--min-effect", "2.5%", base, base}).code, 0);
  EXPECT_EQ(run({"compare", "--latency-bytes", "1Q", base, base}).code, 2);
  EXPECT_EQ(run({"compare", "--latency-widening", "0.5", base, base}).code, 2);
  EXPECT_EQ(run({"compare", base}).code, 2);
  EXPECT_EQ(run({"frobnicate"}).code, 2);
  EXPECT_EQ(run({}).code, 2);
  EXPECT_EQ(run({"--help"}).code, 0);
}

TEST(CollreportCli, SummaryTextAndMarkdown) {
  const std::string known =
      fixtures::write_temp_file("known.csv", fixtures::to_csv(fixtures::summary_known_rows()));
  const CliResult text = run({"summary", known});
  EXPECT_EQ(text.code, 0) << text.err;
  const std::string origin =
      "NVIDIA H200, 2-4 GPUs, NCCL 2.28.3, 2026-11-22; ± = half the median's confidence "
      "interval, in percent of p50\n";
  EXPECT_EQ(text.out.rfind(origin, 0), 0u) << text.out;
  EXPECT_NE(text.out.find("256 MiB"), std::string::npos);
  const CliResult markdown = run({"summary", "--markdown", known});
  EXPECT_EQ(markdown.code, 0);
  EXPECT_NE(markdown.out.find("| op | algo | ranks |"), std::string::npos) << markdown.out;
  EXPECT_EQ(text.out.find("Between passes"), std::string::npos);  // one pass only
}

// alltoallv rows (collbench's tenth op) read, summarise and compare, each traffic a case of its
// own through the config column, a matrix file name with a comma included.
TEST(CollreportCli, ReadsAlltoallvRowsApartByTheirTraffic) {
  fixtures::ReportRow half = fixtures::measured_row("alltoallv", "nccl", 2, kMiB, 20.0, 100.0);
  half.count = 131072;
  half.config = "a2av_spread=0.5";
  fixtures::ReportRow full = half;
  full.config = "a2av_spread=1";
  fixtures::ReportRow matrix = fixtures::measured_row("alltoallv", "nccl", 2, 4352, 2.0, 5.0);
  matrix.count = 0;
  matrix.config = "a2av_matrix=traffic, v2.txt";
  const std::string path =
      fixtures::write_temp_file("alltoallv.csv", fixtures::to_csv({half, full, matrix}));
  const CliResult summary = run({"summary", "--markdown", path});
  EXPECT_EQ(summary.code, 0) << summary.err;
  EXPECT_NE(summary.out.find("alltoallv"), std::string::npos) << summary.out;
  const CliResult same = run({"compare", path, path});
  EXPECT_EQ(same.code, 0) << same.err << same.out;
}

TEST(CollreportCli, SummaryOfSeveralPassesListsTheirSpread) {
  std::vector<fixtures::ReportRow> rows = fixtures::baseline_rows();
  const std::size_t first_pass = rows.size();
  for (std::size_t i = 0; i < first_pass; ++i) {
    fixtures::ReportRow pass = rows[i];
    pass.repeat = 1;
    pass.time.p50_us *= 1.02;
    pass.time.p50_lo_us *= 1.02;
    pass.time.p50_hi_us *= 1.02;
    rows.push_back(pass);
  }
  const std::string path = fixtures::write_temp_file("passes.csv", fixtures::to_csv(rows));
  const CliResult text = run({"summary", path});
  EXPECT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("\nBetween passes (--repeat): 112 cases measured in 2 passes; spread = "
                          "slowest pass's p50 / fastest's - 1; median 2.0%, the 10 widest:\n"),
            std::string::npos)
      << text.out;
  const CliResult markdown = run({"summary", "--markdown", path});
  EXPECT_NE(markdown.out.find("| op | algo | ranks | dtype | variant | size | passes |"),
            std::string::npos)
      << markdown.out;
}

TEST(CollreportCli, MergeWritesAReadableReport) {
  const std::vector<fixtures::ReportRow> rows = fixtures::baseline_rows();
  const std::vector<fixtures::ReportRow> first(rows.begin(), rows.begin() + 10);
  const std::vector<fixtures::ReportRow> second(rows.begin() + 10, rows.end());
  const std::string a = fixtures::write_temp_file("a.csv", fixtures::to_csv(first));
  const std::string b = fixtures::write_temp_file("b.csv", fixtures::to_csv(second));
  const std::string merged = fixtures::write_temp_file("merged.csv", "");
  EXPECT_EQ(run({"merge", a, b, "-o", merged}).code, 0);
  EXPECT_EQ(fixtures::read_file(merged), fixtures::to_csv(rows));
  const CliResult to_stdout = run({"merge", a, b});
  EXPECT_EQ(to_stdout.out, fixtures::to_csv(rows));
  // Merging a report with itself repeats every row.
  EXPECT_EQ(run({"merge", a, a}).code, 2);
}

}  // namespace
}  // namespace collbench::collreport
