// `collreport ranks`: per-rank medians and means, the straggler rule, the summary per rank, the
// command line's output and exit codes.
#include "ranks.hpp"

#include <gtest/gtest.h>

#include "cli_run.hpp"
#include "csv_text.hpp"
#include "fixture_reports.hpp"
#include "sample_text.hpp"
#include "statistics.hpp"

namespace collbench::collreport {
namespace {

using nlohmann::json;
using Samples = std::vector<std::vector<double>>;

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

json case_line(int ranks, std::uint64_t bytes, const Samples& rank_samples_us) {
  report::ReportRow row = fixtures::measured_row("all_reduce", "nccl", ranks, bytes, 45.0, 34.9);
  if (ranks == 1) row.algbw_gbps = 30.0;  // the fixture derives it from busbw, whose factor is 0
  return fixtures::sample_case_line(row, rank_samples_us);
}

// Rank 2 is 30% slower; rank 0 has one stray sample (30 us) that makes its mean, not its median,
// 40% higher than the others'.
const Samples kStraggler = {{10.0, 10.2, 9.8, 10.1, 30.0},
                            {10.0, 10.0, 10.0, 10.0, 10.0},
                            {13.0, 13.0, 13.0, 13.0, 13.0},
                            {9.9, 10.1, 10.0, 10.2, 9.8}};
// Rank 1 is 5% slower: within the default threshold.
const Samples kBalanced = {
    {10.0, 10.1, 9.9}, {10.5, 10.6, 10.4}, {10.0, 10.0, 10.0}, {9.9, 10.0, 10.1}};

// The straggler case, a one-rank case, a skipped case and one whose ranks have no samples.
report::SampleFile straggler_file() {
  report::ReportRow skipped = fixtures::measured_row("all_reduce", "nccl", 4, 2 * kMiB, 0, 0);
  skipped.status = report::kStatusSkipped;
  return report::parse_sample_file(
      "s.json", fixtures::sample_file_text(
                    {fixtures::sample_run_line(), case_line(1, kMiB, {{5.0, 5.0}}),
                     case_line(4, kMiB, kStraggler), fixtures::sample_case_line(skipped, {}),
                     case_line(4, 4 * kMiB, {{}, {}, {}, {}})}));
}

std::string write_samples(const std::string& name, const std::vector<json>& cases) {
  std::vector<json> lines = {fixtures::sample_run_line()};
  lines.insert(lines.end(), cases.begin(), cases.end());
  return fixtures::write_temp_file(name, fixtures::sample_file_text(lines));
}

// The median ranks use: the middle sample, or halfway between the two middle ones, in any order.
TEST(Median, MiddleSampleOrMeanOfTheTwoMiddleOnes) {
  EXPECT_DOUBLE_EQ(stats::median({3.0, 1.0, 2.0}), 2.0);
  EXPECT_DOUBLE_EQ(stats::median({4.0, 1.0, 3.0, 2.0}), 2.5);
  EXPECT_DOUBLE_EQ(stats::median({9.0, 1.0, 1.5, 30.0, 1.25, 1.0}), 1.375);
  EXPECT_DOUBLE_EQ(stats::median({7.0}), 7.0);
  EXPECT_THROW(stats::median({}), std::invalid_argument);
}

TEST(Ranks, MediansMeansAndTheStraggler) {
  const RanksAnalysis analysis = analyze_ranks(straggler_file(), {});
  EXPECT_EQ(analysis.single_rank_cases, 1u);
  EXPECT_EQ(analysis.unmeasured_cases, 2u);
  ASSERT_EQ(analysis.cases.size(), 1u);
  const CaseRanks& c = analysis.cases[0];
  EXPECT_EQ(c.line, 3u);
  EXPECT_EQ(c.slowest_rank, 2);
  ASSERT_EQ(c.ranks.size(), 4u);
  const double medians[] = {10.1, 10.0, 13.0, 10.0};
  const double means[] = {14.02, 10.0, 13.0, 10.0};
  // Against the median of the other three medians: 10.0 for ranks 0 and 2, 10.1 for 1 and 3.
  const double excesses[] = {10.1 / 10.0 - 1, 10.0 / 10.1 - 1, 0.3, 10.0 / 10.1 - 1};
  for (int rank = 0; rank < 4; ++rank) {
    SCOPED_TRACE(rank);
    EXPECT_NEAR(c.ranks[rank].median_us, medians[rank], 1e-12);
    EXPECT_NEAR(c.ranks[rank].mean_us, means[rank], 1e-12);
    EXPECT_NEAR(c.ranks[rank].excess, excesses[rank], 1e-12);
    // Rank 0's mean is 40% above the others', but its median is not: not flagged.
    EXPECT_EQ(c.ranks[rank].straggler, rank == 2);
  }
  EXPECT_EQ(analysis.straggler_count(), 1u);
  EXPECT_EQ(analysis.exit_code(), 1);
}

TEST(Ranks, OfTwoRanksTheSlowerIsMeasuredAgainstTheOther) {
  const RanksAnalysis analysis = analyze_ranks(
      report::parse_sample_file(
          "s.json", fixtures::sample_file_text({fixtures::sample_run_line(),
                                                case_line(2, kMiB, {{10.0, 10.0}, {13.0, 13.0}})})),
      {});
  ASSERT_EQ(analysis.cases.size(), 1u);
  EXPECT_NEAR(analysis.cases[0].ranks[1].excess, 0.3, 1e-12);
  EXPECT_NEAR(analysis.cases[0].ranks[0].excess, 10.0 / 13.0 - 1, 1e-12);
  EXPECT_TRUE(analysis.cases[0].ranks[1].straggler);
  EXPECT_FALSE(analysis.cases[0].ranks[0].straggler);
}

TEST(Ranks, SummaryPerRankOverAllCases) {
  // The straggler case, then a 2-rank case whose rank 0 is 2% slower.
  const RanksAnalysis analysis = analyze_ranks(
      report::parse_sample_file(
          "s.json",
          fixtures::sample_file_text({fixtures::sample_run_line(), case_line(4, kMiB, kStraggler),
                                      case_line(2, kMiB, {{10.2}, {10.0}})})),
      {});
  ASSERT_EQ(analysis.ranks.size(), 4u);
  const struct {
    std::size_t cases, slowest, stragglers;
    double median_excess;
  } expected[] = {{2, 1, 0, (10.1 / 10.0 - 1 + 0.02) / 2},
                  {2, 0, 0, (10.0 / 10.1 - 1 + 10.0 / 10.2 - 1) / 2},
                  {1, 1, 1, 0.3},
                  {1, 0, 0, 10.0 / 10.1 - 1}};
  for (int rank = 0; rank < 4; ++rank) {
    SCOPED_TRACE(rank);
    const RankSummary& summary = analysis.ranks[rank];
    EXPECT_EQ(summary.rank, rank);
    EXPECT_EQ(summary.cases, expected[rank].cases);
    EXPECT_EQ(summary.slowest, expected[rank].slowest);
    EXPECT_EQ(summary.stragglers, expected[rank].stragglers);
    EXPECT_NEAR(summary.median_excess, expected[rank].median_excess, 1e-12);
  }
}

TEST(Ranks, CommandLineFlagsTheStragglerAndExitsOne) {
  const std::string path = write_samples(
      "straggler.json", {case_line(1, kMiB, {{5.0, 5.0}}), case_line(4, kMiB, kStraggler)});
  const CliResult result = run_cli({"ranks", path});
  EXPECT_EQ(result.code, 1) << result.err;
  EXPECT_EQ(result.err, "");
  EXPECT_EQ(
      result.out,
      "collreport ranks: STRAGGLERS above 10%: rank 2 in 1 of 1 cases; 1 case(s) compared; "
      "skipped: 1 with one rank, 0 not measured\n"
      "NVIDIA H200, 4 GPUs, NCCL 2.28.3, 2026-11-22\n"
      "straggler: a rank whose median time is more than 10% above the median of the other ranks' "
      "medians; times per operation in us\n"
      "\n"
      "op          algo  ranks  dtype  variant   size  rank  median (us)  mean (us)  vs others  "
      "slowest  straggler\n"
      "----------  ----  -----  -----  -------  -----  ----  -----------  ---------  ---------  "
      "-------  ---------\n"
      "all_reduce  nccl      4  float           1 MiB     0        10.10      14.02      +1.0%\n"
      "all_reduce  nccl      4  float           1 MiB     1        10.00      10.00      -1.0%\n"
      "all_reduce  nccl      4  float           1 MiB     2        13.00      13.00     +30.0%  "
      "slowest  STRAGGLER\n"
      "all_reduce  nccl      4  float           1 MiB     3        10.00      10.00      -1.0%\n"
      "\n"
      "rank  cases  slowest in  straggler in  median vs others\n"
      "----  -----  ----------  ------------  ----------------\n"
      "   0      1           0             0             +1.0%\n"
      "   1      1           0             0             -1.0%\n"
      "   2      1           1             1            +30.0%\n"
      "   3      1           0             0             -1.0%\n");
}

TEST(Ranks, BalancedRanksPassWithExitZero) {
  const std::string path = write_samples("balanced.json", {case_line(4, kMiB, kBalanced)});
  const CliResult result = run_cli({"ranks", path});
  EXPECT_EQ(result.code, 0) << result.err;
  EXPECT_EQ(result.out.substr(0, result.out.find('\n')),
            "collreport ranks: PASS: no straggler above 10%; 1 case(s) compared; skipped: 0 with "
            "one rank, 0 not measured");
  EXPECT_EQ(result.out.find("STRAGGLER"), std::string::npos);
}

TEST(Ranks, ThresholdDecides) {
  const std::string path = write_samples("balanced.json", {case_line(4, kMiB, kBalanced)});
  // Rank 1 is 5% above the others.
  EXPECT_EQ(run_cli({"ranks", path, "--threshold", "6"}).code, 0);
  EXPECT_EQ(run_cli({"ranks", path, "--threshold", "4%"}).code, 1);
  EXPECT_EQ(run_cli({"ranks", "--threshold=4.5", path}).code, 1);
}

TEST(Ranks, BadThresholdsAreOneLineAndExitTwo) {
  const std::string path = write_samples("balanced.json", {case_line(4, kMiB, kBalanced)});
  for (const std::string value : {"abc", "0", "100", "-5", "", "5%%", "nan", "1e400"}) {
    SCOPED_TRACE(value);
    const CliResult result = run_cli({"ranks", path, "--threshold", value});
    EXPECT_EQ(result.code, 2);
    EXPECT_EQ(result.out, "");
    EXPECT_EQ(result.err, "collreport: error: --threshold '" + value +
                              "' is not a percentage between 0 and 100 (e.g. 5 or 5%)\n");
  }
  const CliResult missing = run_cli({"ranks", path, "--threshold"});
  EXPECT_EQ(missing.code, 2);
  EXPECT_EQ(missing.err.rfind("collreport: error: ", 0), 0u);
  EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1);
}

TEST(Ranks, NothingToCompareIsBadInput) {
  const std::string path = write_samples("one_rank.json", {case_line(1, kMiB, {{5.0, 5.0}})});
  const CliResult result = run_cli({"ranks", path});
  EXPECT_EQ(result.code, 2);
  EXPECT_EQ(result.err, "collreport: error: " + path +
                            ": nothing to compare: no case has two or more ranks with samples (0 "
                            "case(s) compared; skipped: 1 with one rank, 0 not measured)\n");
}

TEST(Ranks, BadOrCutOffFiles) {
  const std::string csv = fixtures::write_temp_file(
      "report.csv",
      fixtures::to_csv({fixtures::measured_row("all_reduce", "nccl", 4, kMiB, 1, 1)}));
  const CliResult on_csv = run_cli({"ranks", csv});
  EXPECT_EQ(on_csv.code, 2);
  EXPECT_EQ(on_csv.err, "collreport: error: " + csv +
                            ":1: not a sample file: the first line is not a JSON object "
                            "(collbench --json writes sample files)\n");

  const std::string text =
      fixtures::sample_file_text({fixtures::sample_run_line(), case_line(4, kMiB, kStraggler),
                                  case_line(4, 2 * kMiB, kBalanced)});
  const std::string cut = fixtures::write_temp_file("cut.json", text.substr(0, text.size() - 10));
  const CliResult on_cut = run_cli({"ranks", cut});
  EXPECT_EQ(on_cut.code, 1);  // the straggler case was read
  EXPECT_EQ(on_cut.err,
            "collreport: warning: " + cut +
                ":3: the last line is cut off (a run interrupted while writing it?) and "
                "was left out; 1 case(s) read\n");
}

TEST(Ranks, Markdown) {
  const std::string path = write_samples("straggler.json", {case_line(4, kMiB, kStraggler)});
  const CliResult result = run_cli({"ranks", path, "--markdown"});
  EXPECT_EQ(result.code, 1);
  EXPECT_EQ(
      result.out.rfind("### collreport ranks: NVIDIA H200, 4 GPUs, NCCL 2.28.3, 2026-11-22\n\n"
                       "collreport ranks: STRAGGLERS above 10%: rank 2 in 1 of 1 cases",
                       0),
      0u)
      << result.out;
  EXPECT_NE(result.out.find("| rank | cases | slowest in | straggler in | median vs others |\n"
                            "| ---: | ---: | ---: | ---: | ---: |\n"
                            "| 0 | 1 | 0 | 0 | +1.0% |\n"),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("| all_reduce | nccl | 4 | float |  | 1 MiB | 2 | 13.00 | 13.00 | "
                            "+30.0% | slowest | STRAGGLER |\n"),
            std::string::npos)
      << result.out;
}

json late_case_line(std::uint64_t bytes, const Samples& rank_samples_us,
                    const Samples& rank_lateness_us) {
  json line = case_line(static_cast<int>(rank_samples_us.size()), bytes, rank_samples_us);
  line["rank_lateness_us"] = rank_lateness_us;
  return line;
}

// Rank 1 launches every sample 2 ms after rank 0: its own time is the shortest (rank 0 waits for
// it inside the collective), so only its lateness flags it.
const Samples kLateOwnTimes = {{2100.0, 2100.0, 2100.0}, {100.0, 100.0, 100.0}};
const Samples kLateness = {{0.0, 0.0, 0.0}, {2000.0, 2000.0, 2000.0}};

TEST(Ranks, ALateRankIsAStragglerByItsLateness) {
  const RanksAnalysis analysis = analyze_ranks(
      report::parse_sample_file(
          "s.json", fixtures::sample_file_text({fixtures::sample_run_line(),
                                                late_case_line(kMiB, kLateOwnTimes, kLateness)})),
      {});
  ASSERT_EQ(analysis.cases.size(), 1u);
  const CaseRanks& c = analysis.cases[0];
  EXPECT_TRUE(c.has_lateness);
  EXPECT_DOUBLE_EQ(c.late_limit_us, 525.0);  // 25% of the case's median time, 2100 us
  EXPECT_DOUBLE_EQ(c.ranks[1].mean_lateness_us, 2000.0);
  EXPECT_TRUE(c.ranks[1].late);
  EXPECT_FALSE(c.ranks[1].slow);
  EXPECT_TRUE(c.ranks[1].straggler);
  // Rank 0's own time is 21 times rank 1's: slow by its time, and not late.
  EXPECT_TRUE(c.ranks[0].slow);
  EXPECT_FALSE(c.ranks[0].late);
  ASSERT_EQ(analysis.ranks.size(), 2u);
  EXPECT_EQ(analysis.ranks[1].late, 1u);
  EXPECT_DOUBLE_EQ(analysis.ranks[1].mean_lateness_us, 2000.0);
  EXPECT_DOUBLE_EQ(analysis.ranks[0].mean_lateness_us, 0.0);
}

// The limit is max(50 us, 25% of the case's median time), strictly above; ranks balanced in time.
TEST(Ranks, LatenessLimitIsAFloorOrAQuarterOfTheMedian) {
  const Samples even = {{10.0, 10.0}, {10.0, 10.0}};
  const Samples slow_case = {{400.0, 400.0}, {400.0, 400.0}};
  const struct {
    Samples times;
    double lateness_us;
    bool late;
  } table[] = {{even, 49.0, false},      {even, 50.0, false},       {even, 51.0, true},
               {slow_case, 99.0, false}, {slow_case, 100.0, false}, {slow_case, 101.0, true}};
  for (const auto& row : table) {
    SCOPED_TRACE(row.lateness_us);
    const Samples lateness = {{0.0, 0.0}, {row.lateness_us - 1, row.lateness_us + 1}};
    const RanksAnalysis analysis = analyze_ranks(
        report::parse_sample_file(
            "s.json", fixtures::sample_file_text({fixtures::sample_run_line(),
                                                  late_case_line(kMiB, row.times, lateness)})),
        {});
    EXPECT_EQ(analysis.cases[0].ranks[1].late, row.late);
    EXPECT_EQ(analysis.cases[0].ranks[1].straggler, row.late);
    EXPECT_FALSE(analysis.cases[0].ranks[0].straggler);
  }
}

TEST(Ranks, CommandLineShowsLatenessAndFlagsTheLateRank) {
  const std::string path = write_samples(
      "late.json",
      {late_case_line(kMiB, kLateOwnTimes, kLateness), case_line(2, 4 * kMiB, {{10.0}, {10.0}})});
  const CliResult result = run_cli({"ranks", path});
  EXPECT_EQ(result.code, 1) << result.err;
  EXPECT_EQ(result.out,
            "collreport ranks: STRAGGLERS above 10%: rank 0 in 1 of 2 cases, rank 1 in 1 of 2 "
            "cases (1 late); 2 "
            "case(s) compared; skipped: 0 with one rank, 0 not measured\n"
            "NVIDIA H200, 2 GPUs, NCCL 2.28.3, 2026-11-22\n"
            "straggler: a rank whose median time is more than 10% above the median of the other "
            "ranks' medians, or "
            "whose mean lateness (its launch of a sample after the earliest rank's) is above "
            "max(50 us, 25% of the "
            "case's median time); times per operation in us\n"
            "\n"
            "op          algo  ranks  dtype  variant   size  rank  median (us)  mean (us)  vs "
            "others  lateness (us)  "
            "slowest  straggler\n"
            "----------  ----  -----  -----  -------  -----  ----  -----------  ---------  "
            "---------  -------------  "
            "-------  ----------------\n"
            "all_reduce  nccl      2  float           1 MiB     0       2100.0     2100.0   "
            "+2000.0%           0.00  "
            "slowest  STRAGGLER\n"
            "all_reduce  nccl      2  float           1 MiB     1       100.00     100.00     "
            "-95.2%         2000.0  "
            "         STRAGGLER (late)\n"
            "all_reduce  nccl      2  float           4 MiB     0        10.00      10.00      "
            "+0.0%              -  "
            "slowest\n"
            "all_reduce  nccl      2  float           4 MiB     1        10.00      10.00      "
            "+0.0%              -\n"
            "\n"
            "rank  cases  slowest in  straggler in  median vs others  mean lateness (us)\n"
            "----  -----  ----------  ------------  ----------------  ------------------\n"
            "   0      2           2             1          +1000.0%                0.00\n"
            "   1      2           0             1            -47.6%              2000.0\n");
}

TEST(Ranks, HelpFitsATerminal) {
  const CliResult help = run_cli({"ranks", "--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("--threshold"), std::string::npos);
  std::size_t begin = 0;
  while (begin < help.out.size()) {
    const std::size_t end = std::min(help.out.find('\n', begin), help.out.size());
    EXPECT_LE(end - begin, 100u) << help.out.substr(begin, end - begin);
    begin = end + 1;
  }
}

}  // namespace
}  // namespace collbench::collreport
