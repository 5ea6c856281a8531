// The sample file reader: what it reads, each kind of bad line with its line number, a cut-off
// last line.
#include "reports/sample_file.hpp"

#include <gtest/gtest.h>

#include <functional>

#include "reports/json_row.hpp"
#include "support/csv_text.hpp"
#include "support/fixture_reports.hpp"
#include "support/sample_text.hpp"

namespace collbench::report {
namespace {

using nlohmann::json;

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

ReportRow all_reduce_row(std::uint64_t bytes) {
  return fixtures::measured_row("all_reduce", "nccl", 4, bytes, 45.0, 34.9);
}

// Four ranks, three samples: the slowest rank per sample is 10.5, 12.25, 11.0.
const std::vector<std::vector<double>> kRankSamples = {
    {10.0, 12.0, 11.0}, {10.5, 11.5, 10.75}, {10.25, 12.25, 10.5}, {9.75, 11.0, 10.0}};

// Each rank's launch of each sample after the earliest rank's: rank 2 arrives 2 ms late.
const std::vector<std::vector<double>> kRankLateness = {
    {0.0, 1.5, 0.0}, {3.0, 0.0, 2.5}, {2000.0, 2001.0, 1999.5}, {0.5, 0.25, 1.0}};

json good_case() {
  return fixtures::sample_case_line(all_reduce_row(kMiB), kRankSamples);
}

json all_reduce_case_of(std::uint64_t bytes) {
  return fixtures::sample_case_line(all_reduce_row(bytes), kRankSamples);
}

json skipped_case() {
  ReportRow row = all_reduce_row(2 * kMiB);
  row.status = kStatusSkipped;
  row.reason = "unsupported";
  return fixtures::sample_case_line(row, {});
}

TEST(SampleFile, ReadsTheRunAndEveryCase) {
  const std::string text = fixtures::sample_run_line().dump() + "\n\n" + good_case().dump() + "\n" +
                           skipped_case().dump() + "\n";
  const SampleFile file = parse_sample_file("s.json", text);
  EXPECT_EQ(file.path, "s.json");
  EXPECT_EQ(file.run.started, "2026-11-22T10:00:00Z");
  EXPECT_EQ(file.run.metadata.at("host"), "fixture-host");
  EXPECT_EQ(file.run.metadata.at("gpus").size(), 4u);
  EXPECT_EQ(file.run.settings.at("iters"), 20);
  EXPECT_TRUE(file.warning.empty());
  ASSERT_EQ(file.cases.size(), 2u);

  const SampleCase& measured = file.cases[0];
  EXPECT_EQ(measured.line, 3u);  // the blank line 2 still counts
  EXPECT_EQ(measured.name, "all_reduce/nccl/4/1048576");
  EXPECT_EQ(measured.row.op, "all_reduce");
  EXPECT_EQ(measured.row.ranks, 4);
  EXPECT_EQ(measured.row.bytes, kMiB);
  EXPECT_EQ(measured.row.time.samples, 3);
  EXPECT_DOUBLE_EQ(measured.row.time.p50_us, 34.9);
  EXPECT_EQ(measured.ops_per_sample, 1);
  EXPECT_EQ(measured.samples_us, (std::vector<double>{10.5, 12.25, 11.0}));
  EXPECT_EQ(measured.rank_samples_us, kRankSamples);
  EXPECT_TRUE(measured.rank_lateness_us.empty());  // a file from before lateness was written

  const SampleCase& skipped = file.cases[1];
  EXPECT_EQ(skipped.line, 4u);
  EXPECT_EQ(skipped.row.status, kStatusSkipped);
  EXPECT_EQ(skipped.row.reason, "unsupported");
  EXPECT_TRUE(skipped.samples_us.empty());
  EXPECT_TRUE(skipped.rank_samples_us.empty());
}

TEST(SampleFile, ReadsEachRanksLatenessWhenTheFileHasIt) {
  json measured = good_case();
  measured["rank_lateness_us"] = kRankLateness;
  json skipped = skipped_case();
  skipped["rank_lateness_us"] = json::array();
  const SampleFile file = parse_sample_file(
      "s.json", fixtures::sample_file_text({fixtures::sample_run_line(), measured, skipped}));
  ASSERT_EQ(file.cases.size(), 2u);
  EXPECT_EQ(file.cases[0].rank_lateness_us, kRankLateness);
  EXPECT_TRUE(file.cases[1].rank_lateness_us.empty());
}

TEST(SampleFile, ReadsEachRanksHostWhenTheFileHasIt) {
  json two_hosts = good_case();
  two_hosts["rank_hosts"] = {0, 0, 7, 7};
  json none = all_reduce_case_of(2 * kMiB);
  none["rank_hosts"] = json::array();  // as good as absent: one host
  const SampleFile file = parse_sample_file(
      "s.json", fixtures::sample_file_text(
                    {fixtures::sample_run_line(), two_hosts, none, all_reduce_case_of(4 * kMiB)}));
  ASSERT_EQ(file.cases.size(), 3u);
  EXPECT_EQ(file.cases[0].rank_hosts, (std::vector<int>{0, 0, 7, 7}));
  EXPECT_TRUE(file.cases[1].rank_hosts.empty());
  EXPECT_TRUE(file.cases[2].rank_hosts.empty());  // a file from before hosts were written
}

// Every bad line is one ReportError naming the file, the line and the problem.
struct BadFile {
  const char* what;
  std::function<std::string()> text;
  const char* message;
};

std::string run_and(const std::vector<json>& cases) {
  std::vector<json> lines = {fixtures::sample_run_line()};
  lines.insert(lines.end(), cases.begin(), cases.end());
  return fixtures::sample_file_text(lines);
}

// The good file with one field of its case line (line 2) replaced.
std::string case_with(const std::string& key, const json& value) {
  json line = good_case();
  line[key] = value;
  return run_and({line});
}

std::string run_with(const std::string& key, const json& value) {
  json run = fixtures::sample_run_line();
  run[key] = value;
  return fixtures::sample_file_text({run, good_case()});
}

const BadFile kBadFiles[] = {
    {"empty", [] { return std::string(" \n\n"); }, "s.json:1: empty file (no run line)"},
    {"a CSV report", [] { return fixtures::to_csv({all_reduce_row(kMiB)}); },
     "s.json:1: not a sample file: the first line is not a JSON object (collbench --json writes "
     "sample files)"},
    {"not JSON in the middle",
     [] { return run_and({}) + "{\"type\":\"case\",\n" + good_case().dump() + "\n"; },
     "s.json:2: not JSON: column 16: syntax error while parsing object key - unexpected end of "
     "input; expected string literal"},
    {"a number no double holds", [] { return run_and({}) + "{\"type\":\"case\",\"x\":1e999}\n"; },
     "s.json:2: not JSON: number overflow parsing '1e999'"},
    {"not an object", [] { return run_and({}) + "[1,2]\n"; }, "s.json:2: not a JSON object"},
    {"no type",
     [] {
       return run_and({json{{"name", "x"}}});
     },
     "s.json:2: no 'type' field"},
    {"unknown type",
     [] {
       return run_and({json{{"type", "note"}}});
     },
     "s.json:2: unknown line type 'note' (expected run or case)"},
    {"wrong format", [] { return run_with("format", "other"); },
     "s.json:1: format \"other\" is not \"collbench-samples\""},
    {"wrong version", [] { return run_with("version", 2); },
     "s.json:1: unknown sample file version 2 (this tool reads version 1)"},
    {"version as text", [] { return run_with("version", "1"); },
     "s.json:1: unknown sample file version \"1\" (this tool reads version 1)"},
    {"a case before the run line",
     [] {
       return fixtures::sample_file_text({good_case(), fixtures::sample_run_line()});
     },
     "s.json:1: a case line before the run line (the file must start with it)"},
    {"a second run line",
     [] {
       return run_and({good_case(), fixtures::sample_run_line()});
     },
     "s.json:3: a second run line (the first is line 1)"},
    {"no cases", [] { return run_and({}); }, "s.json:2: no case lines after the run line"},
    {"a row failing its column check",
     [] {
       json line = good_case();
       line["row"]["ranks"] = 0;
       return run_and({line});
     },
     "s.json:2: row: column 'ranks': '0' is out of range (expected 1 to 1048576)"},
    {"a row missing a column",
     [] {
       json line = good_case();
       line["row"].erase("dtype");
       return run_and({line});
     },
     "s.json:2: row: column 'dtype' is missing"},
    {"no samples_us",
     [] {
       json line = good_case();
       line.erase("samples_us");
       return run_and({line});
     },
     "s.json:2: no 'samples_us' field"},
    {"samples_us not an array", [] { return case_with("samples_us", 10.5); },
     "s.json:2: 'samples_us' is 10.5, not an array of times"},
    {"a negative sample",
     [] {
       return case_with("samples_us", {10.5, -1.0, 11.0});
     },
     "s.json:2: samples_us[1] is -1.0, not a time (a number from 0 to 1e+12 us)"},
    {"a sample that is text",
     [] {
       return case_with("samples_us", {10.5, "12", 11.0});
     },
     "s.json:2: samples_us[1] is \"12\", not a time (a number from 0 to 1e+12 us)"},
    {"a sample above the limit",
     [] {
       return case_with("samples_us", {10.5, 2e12, 11.0});
     },
     "s.json:2: samples_us[1] is 2000000000000.0, not a time (a number from 0 to 1e+12 us)"},
    {"a rank's sample that is null",
     [] {
       json ranks = kRankSamples;
       ranks[2][0] = nullptr;
       return case_with("rank_samples_us", ranks);
     },
     "s.json:2: rank_samples_us[2][0] is null, not a time (a number from 0 to 1e+12 us)"},
    {"a rank that is not an array",
     [] {
       json ranks = kRankSamples;
       ranks[3] = 10.0;
       return case_with("rank_samples_us", ranks);
     },
     "s.json:2: 'rank_samples_us[3]' is 10.0, not an array of times"},
    {"fewer samples than row.samples",
     [] {
       return case_with("samples_us", {10.5, 12.25});
     },
     "s.json:2: samples_us holds 2 samples but row.samples is 3"},
    {"fewer ranks than row.ranks",
     [] {
       return case_with("rank_samples_us", std::vector<std::vector<double>>(
                                               kRankSamples.begin(), kRankSamples.end() - 1));
     },
     "s.json:2: rank_samples_us holds 3 ranks but row.ranks is 4"},
    {"no ranks for a measured case", [] { return case_with("rank_samples_us", json::array()); },
     "s.json:2: rank_samples_us holds 0 ranks but row.ranks is 4"},
    {"a rank with fewer samples",
     [] {
       json ranks = kRankSamples;
       ranks[1].erase(2);
       return case_with("rank_samples_us", ranks);
     },
     "s.json:2: rank_samples_us[1] holds 2 samples but samples_us holds 3"},
    {"lateness of fewer ranks than row.ranks",
     [] {
       return case_with("rank_lateness_us", json::array({{0.0, 0.0, 0.0}}));
     },
     "s.json:2: rank_lateness_us holds 1 ranks but row.ranks is 4"},
    {"a rank's lateness with more samples",
     [] {
       json lateness = kRankLateness;
       lateness[3].push_back(1.0);
       return case_with("rank_lateness_us", lateness);
     },
     "s.json:2: rank_lateness_us[3] holds 4 samples but samples_us holds 3"},
    {"a negative lateness",
     [] {
       json lateness = kRankLateness;
       lateness[0][1] = -0.5;
       return case_with("rank_lateness_us", lateness);
     },
     "s.json:2: rank_lateness_us[0][1] is -0.5, not a time (a number from 0 to 1e+12 us)"},
    {"lateness that is not an array", [] { return case_with("rank_lateness_us", "late"); },
     "s.json:2: 'rank_lateness_us' is \"late\", not an array"},
    {"hosts that are not an array", [] { return case_with("rank_hosts", "node0"); },
     "s.json:2: 'rank_hosts' is \"node0\", not an array"},
    {"a host that is not a number",
     [] {
       return case_with("rank_hosts", {0, 0, "b", 1});
     },
     "s.json:2: rank_hosts[2] is \"b\", not a host number (an integer from 0)"},
    {"a negative host",
     [] {
       return case_with("rank_hosts", {0, -1, 1, 1});
     },
     "s.json:2: rank_hosts[1] is -1, not a host number (an integer from 0)"},
    {"a fractional host",
     [] {
       return case_with("rank_hosts", {0, 0.5, 1, 1});
     },
     "s.json:2: rank_hosts[1] is 0.5, not a host number (an integer from 0)"},
    {"hosts of fewer ranks than row.ranks",
     [] {
       return case_with("rank_hosts", {0, 0, 1});
     },
     "s.json:2: rank_hosts holds 3 ranks but row.ranks is 4"},
    {"ops_per_sample of 0", [] { return case_with("ops_per_sample", 0); },
     "s.json:2: ops_per_sample is 0, not a positive integer"},
    {"a duplicate case",
     [] {
       return run_and({good_case(), good_case()});
     },
     "s.json:3: duplicate case: same independent variables as line 2 (op=all_reduce algo=nccl "
     "ranks=4 dtype=float redop=sum root=-1 in_place=0 bytes=1048576 graph=0 agg_iters=1 "
     "config='')"},
    // Only the last line, unterminated, may be cut off: with its newline it is an error.
    {"a cut-off line with its newline",
     [] { return run_and({good_case()}) + good_case().dump().substr(0, 40) + "\n"; },
     "s.json:3: not JSON: column 41: syntax error while parsing object key - invalid string: "
     "missing closing quote; last read: '\"ops'; expected string literal"},
};

TEST(SampleFile, EachBadLineIsOneErrorNamingItsLine) {
  for (const BadFile& bad : kBadFiles) {
    SCOPED_TRACE(bad.what);
    try {
      parse_sample_file("s.json", bad.text());
      ADD_FAILURE() << "accepted";
    } catch (const ReportError& error) {
      EXPECT_EQ(std::string(error.what()), bad.message);
    }
  }
}

TEST(SampleFile, ReadingRefusesWhatIsNotARegularFile) {
  try {
    read_sample_file(::testing::TempDir());
    ADD_FAILURE() << "accepted a directory";
  } catch (const ReportError& error) {
    EXPECT_EQ(std::string(error.what()),
              ::testing::TempDir() + ": a directory, not a regular file");
  }
}

TEST(SampleFile, ACutOffLastLineIsLeftOutWithAWarning) {
  const std::string whole = run_and({good_case(), skipped_case()});
  // As a run killed while writing its third line leaves the file: no newline after it.
  const std::string cut = whole.substr(0, whole.size() - 30);
  const SampleFile file = parse_sample_file("s.json", cut);
  ASSERT_EQ(file.cases.size(), 1u);
  EXPECT_EQ(file.cases[0].row.bytes, kMiB);
  EXPECT_EQ(file.warning,
            "s.json:3: the last line is cut off (a run interrupted while writing it?) and was left "
            "out; 1 case(s) read");

  // Whole but for its newline, the last line is read.
  const SampleFile unterminated = parse_sample_file("s.json", whole.substr(0, whole.size() - 1));
  EXPECT_EQ(unterminated.cases.size(), 2u);
  EXPECT_TRUE(unterminated.warning.empty());

  // Cut off in the first case line, nothing remains to read.
  const std::string first_cut = run_and({}) + good_case().dump().substr(0, 50);
  try {
    parse_sample_file("s.json", first_cut);
    ADD_FAILURE() << "accepted a file without a case";
  } catch (const ReportError& error) {
    EXPECT_EQ(std::string(error.what()),
              "s.json:2: no complete case line after the run line (this one is cut off)");
  }
}

}  // namespace
}  // namespace collbench::report
