// `collreport ranks`: the late rank named (not the ranks that waited), its cause from host and
// GPU lateness, the naming share over cases, ops not judged, and the command line's output and
// exit codes.
#include "ranks/ranks.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "collreport/commands/cli_run.hpp"
#include "ranks/ranks_output.hpp"
#include "reports/statistics.hpp"
#include "support/csv_text.hpp"
#include "support/fixture_reports.hpp"
#include "support/sample_text.hpp"

namespace collbench::collreport {
namespace {

using nlohmann::json;
using Samples = std::vector<std::vector<double>>;

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
constexpr double kOpUs = 1000;

// A rank that starts late: its host launches late (the GPU follows) or its GPU starts late after
// an on-time launch.
struct Delay {
  int rank = 0;
  double host_us = 0;
  double gpu_us = 0;
};

// Per-rank durations and launches of an op that ends kOpUs after the last arrival on every rank.
struct Arrivals {
  Samples duration_us;
  Samples launch_us;  // after the sample's earliest launch, as collbench writes them
};

// `jitter_us` > 0 adds a fixed pattern of up to 2 x jitter_us to each launch.
Arrivals simulate(int ranks, int samples, const std::vector<Delay>& delays, double jitter_us = 0) {
  Arrivals arrivals{Samples(ranks), Samples(ranks)};
  for (int sample = 0; sample < samples; ++sample) {
    std::vector<double> launch_us(ranks), arrival_us(ranks);
    for (int rank = 0; rank < ranks; ++rank) {
      launch_us[rank] = jitter_us * ((rank * 7 + sample * 3) % 5) / 2;
      arrival_us[rank] = launch_us[rank];
      for (const Delay& delay : delays) {
        if (delay.rank != rank) continue;
        launch_us[rank] += delay.host_us;
        arrival_us[rank] += delay.host_us + delay.gpu_us;
      }
    }
    const double earliest_us = *std::min_element(launch_us.begin(), launch_us.end());
    const double last_us = *std::max_element(arrival_us.begin(), arrival_us.end());
    for (int rank = 0; rank < ranks; ++rank) {
      arrivals.duration_us[rank].push_back(last_us + kOpUs - arrival_us[rank]);
      arrivals.launch_us[rank].push_back(launch_us[rank] - earliest_us);
    }
  }
  return arrivals;
}

json case_line(const std::string& op, std::uint64_t bytes, const Arrivals& arrivals,
               const std::vector<int>& hosts = {}) {
  const int ranks = static_cast<int>(arrivals.duration_us.size());
  json line = fixtures::sample_case_line(
      fixtures::measured_row(op, "nccl", ranks, bytes, 45.0, kOpUs), arrivals.duration_us);
  line["rank_lateness_us"] = arrivals.launch_us;
  if (!hosts.empty()) line["rank_hosts"] = hosts;
  return line;
}

report::SampleFile sample_file(const std::vector<json>& cases) {
  std::vector<json> lines = {fixtures::sample_run_line()};
  lines.insert(lines.end(), cases.begin(), cases.end());
  return report::parse_sample_file("s.json", fixtures::sample_file_text(lines));
}

std::string write_samples(const std::string& name, const std::vector<json>& cases) {
  std::vector<json> lines = {fixtures::sample_run_line()};
  lines.insert(lines.end(), cases.begin(), cases.end());
  return fixtures::write_temp_file(name, fixtures::sample_file_text(lines));
}

std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

// The median the cases' op time comes from: the middle sample, or halfway between the two.
TEST(Median, MiddleSampleOrMeanOfTheTwoMiddleOnes) {
  EXPECT_DOUBLE_EQ(stats::median({3.0, 1.0, 2.0}), 2.0);
  EXPECT_DOUBLE_EQ(stats::median({4.0, 1.0, 3.0, 2.0}), 2.5);
  EXPECT_DOUBLE_EQ(stats::median({9.0, 1.0, 1.5, 30.0, 1.25, 1.0}), 1.375);
  EXPECT_DOUBLE_EQ(stats::median({7.0}), 7.0);
  EXPECT_THROW(stats::median({}), std::invalid_argument);
}

TEST(Ranks, TheLateRankIsNamedAndItsPeersWait) {
  const report::SampleFile file =
      sample_file({case_line("all_reduce", kMiB, simulate(4, 20, {{3, 3000, 0}}, 1))});
  const RanksAnalysis analysis = analyze_ranks(file, {});
  ASSERT_EQ(analysis.cases.size(), 1u);
  const CaseRanks& c = analysis.cases[0];
  EXPECT_TRUE(c.judged);
  EXPECT_EQ(c.judgement.latest_rank, 3);
  const std::vector<std::vector<double>>& own_us = file.cases[0].rank_samples_us;
  for (int rank = 0; rank < 4; ++rank) {
    SCOPED_TRACE(rank);
    const stats::RankArrivalJudgement& verdict = c.judgement.ranks[rank];
    EXPECT_EQ(verdict.late, rank == 3);
    EXPECT_EQ(verdict.cause, rank == 3 ? stats::LateCause::host : stats::LateCause::none);
    EXPECT_EQ(verdict.waiting, rank != 3);
    // The ranks that waited have the longest own times: what the old rule looked at.
    EXPECT_EQ(stats::median(own_us[rank]) > 1.2 * stats::median(own_us[3]), rank != 3);
  }
  ASSERT_EQ(analysis.ranks.size(), 4u);
  EXPECT_TRUE(analysis.ranks[3].named);  // 1 of 1 judged case
  EXPECT_EQ(analysis.exit_code(), 1);
}

// Two of four ranks start late on their GPUs: the other two take 30% longer than them, which
// is what the old rule (median time above the others') flagged. Only the late two are named.
TEST(Ranks, RanksThatWaitedAreNotNamed) {
  std::vector<json> cases;
  for (int i = 0; i < 4; ++i) {
    cases.push_back(
        case_line("all_reduce", (i + 1) * kMiB, simulate(4, 20, {{2, 0, 300}, {3, 0, 300}}, 1)));
  }
  const report::SampleFile file = sample_file(cases);
  const std::vector<std::vector<double>>& own_us = file.cases[0].rank_samples_us;
  EXPECT_GT(stats::median(own_us[0]), 1.25 * stats::median(own_us[2]));
  const RanksAnalysis analysis = analyze_ranks(file, {});
  for (int rank = 0; rank < 4; ++rank) {
    SCOPED_TRACE(rank);
    EXPECT_EQ(analysis.ranks[rank].named, rank >= 2);
    EXPECT_EQ(analysis.ranks[rank].late_gpu, rank >= 2 ? 4u : 0u);
  }
  EXPECT_EQ(
      ranks_verdict_line(analysis).rfind(
          "collreport ranks: LATE: rank 2 (gpu) in 4 of 4 cases, rank 3 (gpu) in 4 of 4; ", 0),
      0u)
      << ranks_verdict_line(analysis);
}

// Twelve cases: rank 3's host is 4 ms late in 11, rank 1's GPU in 3, rank 0's GPU in 1 (sporadic).
std::vector<json> twelve_cases() {
  std::vector<json> cases;
  for (int i = 0; i < 12; ++i) {
    std::vector<Delay> delays;
    if (i < 11) delays.push_back({3, 4000, 0});
    if (i < 3) delays.push_back({1, 0, 250});
    if (i == 11) delays.push_back({0, 0, 500});
    cases.push_back(case_line("all_reduce", (i + 1) * kMiB, simulate(4, 30, delays, 2)));
  }
  return cases;
}

TEST(Ranks, RanksLateInEnoughCasesAreNamedWithTheirCause) {
  const RanksAnalysis analysis = analyze_ranks(sample_file(twelve_cases()), {});
  EXPECT_EQ(analysis.min_late_cases, 3u);  // 25% of 12
  EXPECT_EQ(ranks_verdict_line(analysis),
            "collreport ranks: LATE: rank 3 (host) in 11 of 12 cases, rank 1 (gpu) in 3 of 12; "
            "sporadic: rank 0 in 1 of 12; 12 case(s) judged, 0 not judged (their ranks end at "
            "different times); skipped: 0 with one rank, 0 not measured");
  const RankSummary& rank3 = analysis.ranks[3];
  EXPECT_EQ(rank3.judged, 12u);
  EXPECT_EQ(rank3.late, 11u);
  EXPECT_EQ(rank3.late_host, 11u);
  EXPECT_EQ(rank3.dominant_cause(), stats::LateCause::host);
  // Rank 2 waited in every case: beside a host 4 ms late, even two late ranks do not raise the
  // reference of its limit above what it waited.
  EXPECT_EQ(analysis.ranks[2].waiting, 12u);
  EXPECT_EQ(analysis.ranks[2].late, 0u);
  EXPECT_FALSE(analysis.ranks[0].named);
  EXPECT_EQ(analysis.ranks[0].late_gpu, 1u);
}

TEST(Ranks, MinShareDecides) {
  const std::string path = write_samples("twelve.json", twelve_cases());
  // However small the share, one late case of twelve is not enough: at least 2 are.
  const CliResult smallest = run_cli({"ranks", path, "--min-share", "0.01"});
  EXPECT_EQ(smallest.code, 1);
  EXPECT_NE(first_line(smallest.out).find("; sporadic: rank 0 in 1 of 12;"), std::string::npos)
      << smallest.out;
  // All 12 asked: rank 3, late in 11, is sporadic, and nobody is named.
  const CliResult all = run_cli({"ranks", path, "--min-share", "1"});
  EXPECT_EQ(all.code, 0) << all.err;
  EXPECT_EQ(first_line(all.out),
            "collreport ranks: PASS: no late rank; sporadic: rank 3 in 11 of 12, rank 1 in 3 of "
            "12, rank 0 in 1 of 12; 12 case(s) judged, 0 not judged (their ranks end at different "
            "times); skipped: 0 with one rank, 0 not measured");
  EXPECT_EQ(run_cli({"ranks", "--min-share=0.9", path}).code, 1);  // 11 >= ceil(10.8)
}

TEST(Ranks, OneLateCaseAmongSeveralIsSporadic) {
  const RanksAnalysis analysis =
      analyze_ranks(sample_file({case_line("all_reduce", kMiB, simulate(4, 10, {{1, 0, 300}})),
                                 case_line("all_reduce", 2 * kMiB, simulate(4, 10, {}))}),
                    {});
  EXPECT_EQ(analysis.min_late_cases, 2u);
  EXPECT_EQ(analysis.ranks[1].late, 1u);
  EXPECT_FALSE(analysis.ranks[1].named);
  EXPECT_EQ(analysis.exit_code(), 0);
}

TEST(Ranks, BadMinSharesAreOneLineAndExitTwo) {
  const std::string path =
      write_samples("clean.json", {case_line("all_reduce", kMiB, simulate(4, 5, {}))});
  for (const std::string value : {"abc", "0", "1.5", "-0.2", "", "25%", "nan", "1e400"}) {
    SCOPED_TRACE(value);
    const CliResult result = run_cli({"ranks", path, "--min-share", value});
    EXPECT_EQ(result.code, 2);
    EXPECT_EQ(result.out, "");
    EXPECT_EQ(result.err, "collreport: error: --min-share '" + value +
                              "' is not a share above 0 and at most 1 (e.g. 0.25)\n");
  }
  const CliResult missing = run_cli({"ranks", path, "--min-share"});
  EXPECT_EQ(missing.code, 2);
  EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1);
  // The old rule's option is gone.
  EXPECT_EQ(run_cli({"ranks", path, "--threshold", "10"}).code, 2);
}

TEST(Ranks, CleanRunsPassWithExitZero) {
  const std::string path =
      write_samples("clean.json", {case_line("all_reduce", kMiB, simulate(4, 20, {}, 2)),
                                   case_line("all_gather", kMiB, simulate(8, 20, {}, 3))});
  const CliResult result = run_cli({"ranks", path});
  EXPECT_EQ(result.code, 0) << result.err;
  EXPECT_EQ(first_line(result.out),
            "collreport ranks: PASS: no late rank; 2 case(s) judged, 0 not judged (their ranks end "
            "at different times); skipped: 0 with one rank, 0 not measured");
  EXPECT_EQ(result.out.find("LATE"), std::string::npos);
  EXPECT_EQ(result.out.find("  waiting\n"), std::string::npos);
}

// Without launches (files from before them) or alone on its host, a late rank's cause is unknown;
// with hosts, launches are compared within each host only.
TEST(Ranks, HostsDecideWhatLaunchesAreComparedWith) {
  json no_launches = case_line("all_reduce", kMiB, simulate(4, 10, {{2, 3000, 0}}));
  no_launches.erase("rank_lateness_us");
  const Arrivals late3 = simulate(4, 10, {{3, 3000, 0}});
  const RanksAnalysis analysis = analyze_ranks(
      sample_file({no_launches, case_line("all_reduce", 2 * kMiB, late3, {0, 0, 1, 1}),
                   case_line("all_reduce", 4 * kMiB, late3, {0, 0, 0, 1})}),
      {});
  ASSERT_EQ(analysis.cases.size(), 3u);
  EXPECT_EQ(analysis.cases[0].judgement.ranks[2].cause, stats::LateCause::unknown);
  EXPECT_EQ(analysis.cases[1].judgement.ranks[3].cause, stats::LateCause::host);
  EXPECT_TRUE(analysis.cases[1].arrivals[3].host_known);
  EXPECT_EQ(analysis.cases[2].judgement.ranks[3].cause, stats::LateCause::unknown);
  EXPECT_FALSE(analysis.cases[2].arrivals[3].host_known);
}

json single_rank_line() {
  report::ReportRow row = fixtures::measured_row("all_reduce", "nccl", 1, kMiB, 45.0, 5.0);
  row.algbw_gbps = 30.0;  // the fixture derives it from busbw, whose factor is 0 for one rank
  return fixtures::sample_case_line(row, {{5.0, 5.0}});
}

json broadcast_line(std::uint64_t bytes) {
  return case_line("broadcast", bytes, simulate(4, 10, {{1, 0, 300}}));
}

TEST(Ranks, CommandLineNamesTheLateRankAndExitsOne) {
  const std::string path =
      write_samples("late.json", {single_rank_line(),
                                  case_line("all_reduce", kMiB, simulate(4, 3, {{3, 3000, 0}})),
                                  broadcast_line(kMiB)});
  const CliResult result = run_cli({"ranks", path});
  EXPECT_EQ(result.code, 1) << result.err;
  EXPECT_EQ(result.err, "");
  EXPECT_EQ(
      result.out,
      "collreport ranks: LATE: rank 3 (host) in 1 of 1 cases; 1 case(s) judged, 1 not judged "
      "(their ranks end at different times); skipped: 1 with one rank, 0 not measured\n"
      "NVIDIA H200, 4 GPUs, NCCL 2.28.3, 2026-11-22\n"
      "late: GPU lateness (a sample's longest time minus the rank's own, mean over the samples) "
      "above max(20 us, 5% of the op time, the other ranks' median + 5 x their spread), or host "
      "lateness (its launch after its host's earliest) above the same with 1000 us; waiting: not "
      "late, and waited longer than that limit\n"
      "a rank is named when late in at least 1 of the 1 judged cases (max(2, 25%)): a fault "
      "lasts, a one-off is noise; times per operation in us\n"
      "\n"
      "op          algo  ranks  dtype  variant   size  rank  GPU late (us)  waited (us)  host late "
      "(us)  limit (us)  host limit (us)  verdict\n"
      "----------  ----  -----  -----  -------  -----  ----  -------------  -----------  "
      "--------------  ----------  ---------------  "
      "--------------------------------------------------------------------------\n"
      "all_reduce  nccl      4  float           1 MiB     0           0.00       3000.0          "
      "  0.00      200.00           1000.0  waiting\n"
      "all_reduce  nccl      4  float           1 MiB     1           0.00       3000.0          "
      "  0.00      200.00           1000.0  waiting\n"
      "all_reduce  nccl      4  float           1 MiB     2           0.00       3000.0          "
      "  0.00      200.00           1000.0  waiting\n"
      "all_reduce  nccl      4  float           1 MiB     3         3000.0         0.00          "
      "3000.0      200.00           1000.0  LATE (host)\n"
      "broadcast   nccl      4  float           1 MiB     -                                      "
      "                                     not judged: broadcast ends at different times "
      "on "
      "different ranks by design\n"
      "\n"
      "rank  judged  late  host  gpu  unknown  waiting  mean GPU late (us)  verdict\n"
      "----  ------  ----  ----  ---  -------  -------  ------------------  -----------\n"
      "   0       1     0     0    0        0        1                0.00\n"
      "   1       1     0     0    0        0        1                0.00\n"
      "   2       1     0     0    0        0        1                0.00\n"
      "   3       1     1     1    0        0        0              3000.0  LATE (host)\n");
}

// Under --split each group is its own collective, and the groups end apart: a group that
// finished early is not late.
TEST(Ranks, SplitGroupsAreNotJudged) {
  json split = case_line("all_reduce", kMiB, simulate(4, 10, {{1, 0, 300}, {3, 0, 300}}));
  split["row"]["config"] = "register=local;split=MOD 2;groups=2";
  const RanksAnalysis analysis = analyze_ranks(
      sample_file({split, case_line("all_reduce", 2 * kMiB, simulate(4, 10, {}))}), {});
  ASSERT_EQ(analysis.cases.size(), 2u);
  EXPECT_FALSE(analysis.cases[0].judged);
  EXPECT_EQ(analysis.cases[0].why_not_judged,
            "not judged: its ranks ran in --split groups, which end at different times");
  EXPECT_TRUE(analysis.cases[1].judged);
  EXPECT_EQ(analysis.judged_cases(), 1u);
  EXPECT_EQ(analysis.exit_code(), 0);
  // A config that only mentions a split elsewhere is judged.
  json other = case_line("all_reduce", kMiB, simulate(4, 10, {}));
  other["row"]["config"] = "ring_ctas=32;resplit=1";
  EXPECT_TRUE(analyze_ranks(sample_file({other}), {}).cases[0].judged);
}

TEST(Ranks, NothingJudgedIsBadInput) {
  const std::string path = write_samples("rooted.json", {single_rank_line(), broadcast_line(kMiB)});
  const CliResult result = run_cli({"ranks", path});
  EXPECT_EQ(result.code, 2);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err, "collreport: error: " + path +
                            ": nothing to judge: no case of an op whose ranks end together has "
                            "two or more ranks with samples (0 case(s) judged, 1 not judged "
                            "(their ranks end at different times); skipped: 1 with one rank, 0 "
                            "not measured)\n");
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

  const std::string text = fixtures::sample_file_text(
      {fixtures::sample_run_line(), case_line("all_reduce", kMiB, simulate(4, 5, {{3, 3000, 0}})),
       case_line("all_reduce", 2 * kMiB, simulate(4, 5, {}))});
  const std::string cut = fixtures::write_temp_file("cut.json", text.substr(0, text.size() - 10));
  const CliResult on_cut = run_cli({"ranks", cut});
  EXPECT_EQ(on_cut.code, 1);  // the late case was read: 1 of 1 judged
  EXPECT_EQ(on_cut.err,
            "collreport: warning: " + cut +
                ":3: the last line is cut off (a run interrupted while writing it?) and "
                "was left out; 1 case(s) read\n");
}

TEST(Ranks, Markdown) {
  // A host 3 ms late: beyond the sweep's host floor (1 ms), so the host is the cause.
  const std::string path =
      write_samples("late.json", {case_line("all_reduce", kMiB, simulate(4, 3, {{3, 3000, 0}}))});
  const CliResult result = run_cli({"ranks", path, "--markdown"});
  EXPECT_EQ(result.code, 1);
  EXPECT_EQ(
      result.out.rfind("### collreport ranks: NVIDIA H200, 4 GPUs, NCCL 2.28.3, 2026-11-22\n\n"
                       "collreport ranks: LATE: rank 3 (host) in 1 of 1 cases",
                       0),
      0u)
      << result.out;
  EXPECT_NE(result.out.find("| rank | judged | late | host | gpu | unknown | waiting | mean GPU "
                            "late (us) | verdict |\n"
                            "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n"
                            "| 0 | 1 | 0 | 0 | 0 | 0 | 1 | 0.00 |  |\n"),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("| all_reduce | nccl | 4 | float |  | 1 MiB | 3 | 3000.0 | 0.00 | "
                            "3000.0 | 200.00 | 1000.0 | LATE (host) |\n"),
            std::string::npos)
      << result.out;
}

TEST(Ranks, HelpFitsATerminal) {
  const CliResult help = run_cli({"ranks", "--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("--min-share"), std::string::npos);
  EXPECT_EQ(help.out.find("--threshold"), std::string::npos);
  std::size_t begin = 0;
  while (begin < help.out.size()) {
    const std::size_t end = std::min(help.out.find('\n', begin), help.out.size());
    EXPECT_LE(end - begin, 100u) << help.out.substr(begin, end - begin);
    begin = end + 1;
  }
}

}  // namespace
}  // namespace collbench::collreport
