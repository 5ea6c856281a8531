// Tests of command-line parsing: defaults, lists, and every bad-input error.
#include "collbench/options.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "collbench/sweep_plan.hpp"
#include "core/errors.hpp"
#include "frame/settings/value_parsers.hpp"
#include "reports/schema.hpp"

namespace collbench {
namespace {

Options parse(std::vector<std::string> words) {
  words.insert(words.begin(), "collbench");
  return parse_command_line(words);
}

// Expects a UsageError whose one-line message contains `fragment`.
void expect_usage_error(const std::vector<std::string>& words, const std::string& fragment) {
  try {
    parse(words);
    ADD_FAILURE() << "accepted: " << ::testing::PrintToString(words);
  } catch (const UsageError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find(fragment), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

// Command lines, each with a fragment of its error message.
using UsageErrorTable = std::vector<std::pair<std::vector<std::string>, std::string>>;

void expect_usage_errors(const UsageErrorTable& table) {
  for (const auto& [words, fragment] : table) {
    SCOPED_TRACE(::testing::PrintToString(words));
    expect_usage_error(words, fragment);
  }
}

TEST(Options, DefaultsMatchTheReadme) {
  const Options options = parse({});
  EXPECT_EQ(options.ops, std::vector<std::string>{"all_reduce"});
  EXPECT_EQ(options.min_bytes, 8u);
  EXPECT_EQ(options.max_bytes, 128u << 20);
  EXPECT_EQ(options.run.iters, 20);
  EXPECT_EQ(options.run.warmup_iters, 5);
  EXPECT_EQ(options.run.check_iters, 1);
  EXPECT_EQ(options.in_place, InPlaceMode::both);
  EXPECT_EQ(options.run.timing, IterationTiming::each);
  EXPECT_EQ(parse({"--timing", "loop"}).run.timing, IterationTiming::loop);
  EXPECT_EQ(options.axes.registrations, std::vector<BufferRegistration>{BufferRegistration::none});
}

// Code that builds Options without a command line (tests, tools) gets what `collbench` alone runs:
// the struct's defaults are the settings table's.
TEST(Options, TheTablesDefaultsAreTheStructs) {
  const Options parsed = parse({});
  const Options built;
  EXPECT_EQ(parsed.ops, built.ops);
  EXPECT_EQ(parsed.algos, built.algos);
  EXPECT_EQ(parsed.min_bytes, built.min_bytes);
  EXPECT_EQ(parsed.max_bytes, built.max_bytes);
  EXPECT_EQ(parsed.step_factor, built.step_factor);
  EXPECT_EQ(parsed.step_bytes, built.step_bytes);
  EXPECT_EQ(parsed.types, built.types);
  EXPECT_EQ(parsed.reduce_ops, built.reduce_ops);
  EXPECT_EQ(parsed.roots, built.roots);
  EXPECT_EQ(parsed.in_place, built.in_place);
  EXPECT_EQ(parsed.axes.nccl_algos, built.axes.nccl_algos);
  EXPECT_EQ(parsed.axes.nccl_protos, built.axes.nccl_protos);
  EXPECT_EQ(parsed.axes.nccl_max_ctas, built.axes.nccl_max_ctas);
  EXPECT_EQ(parsed.axes.registrations, built.axes.registrations);
  EXPECT_EQ(parsed.a2av_spreads, built.a2av_spreads);
  EXPECT_EQ(parsed.repeats, built.repeats);
  const MeasureSettings &a = parsed.run, &b = built.run;
  EXPECT_EQ(a.warmup_iters, b.warmup_iters);
  EXPECT_EQ(a.iters, b.iters);
  EXPECT_EQ(a.agg_iters, b.agg_iters);
  EXPECT_EQ(a.graph_replays, b.graph_replays);
  EXPECT_EQ(a.timing, b.timing);
  EXPECT_EQ(a.stop.max_noise_pct, b.stop.max_noise_pct);
  EXPECT_EQ(a.stop.max_mean_noise_pct, b.stop.max_mean_noise_pct);
  EXPECT_EQ(a.stop.min_samples, b.stop.min_samples);
  EXPECT_EQ(a.stop.min_time_s, b.stop.min_time_s);
  EXPECT_EQ(a.stop.max_time_s, b.stop.max_time_s);
  EXPECT_DOUBLE_EQ(a.confidence, b.confidence);
  EXPECT_EQ(a.check_iters, b.check_iters);
  EXPECT_EQ(a.seed, b.seed);
  EXPECT_EQ(a.timeout_s, b.timeout_s);
  EXPECT_EQ(parsed.common.gpu_counts, "all");
  EXPECT_EQ(parsed.common.launcher, "auto");
}

// A value pasted whole (a file's contents) is echoed by its start and its length, whichever check
// refuses it.
TEST(Options, LongBadValuesAreShortenedInTheError) {
  const std::string pasted(100000, 'x');
  for (const std::string& option :
       std::vector<std::string>{"--ops", "-b", "-d", "--seed", "-n", "--algo", "--launcher",
                                "--split", "--inject-fault", "--bogus" + pasted}) {
    SCOPED_TRACE(option.substr(0, 20));
    try {
      parse({option, pasted});
      ADD_FAILURE() << "accepted";
    } catch (const UsageError& error) {
      const std::string message = error.what();
      EXPECT_LT(message.size(), 300u) << message.substr(0, 300);
      EXPECT_NE(message.find("xxx… (100000 characters)"), std::string::npos)
          << message.substr(0, 300);
    }
  }
}

TEST(Options, RegisterIsAListOfModes) {
  EXPECT_EQ(parse({"--register", "local"}).axes.registrations,
            std::vector<BufferRegistration>{BufferRegistration::local});
  EXPECT_EQ(
      parse({"--register", "symmetric,none,symmetric"}).axes.registrations,
      (std::vector<BufferRegistration>{BufferRegistration::symmetric, BufferRegistration::none}));
  EXPECT_EQ(parse({"--register", "all"}).axes.registrations, all_buffer_registrations());
  expect_usage_errors({
      {{"--register", "global"}, "--register 'global' is not one of none, local, symmetric, all"},
      {{"--register", "local,"}, "--register 'local,' has an empty entry"},
      {{"--register", ""}, "--register"},
      {{"--register", "Local"}, "'Local'"},
  });
}

TEST(Options, ExpandsAllAndDeduplicates) {
  const Options options =
      parse({"--ops", "all", "-d", "float,float,bf16", "-o", "all", "-b", "1K", "-e", "1M"});
  EXPECT_EQ(options.ops.size(), 10u);
  EXPECT_EQ(options.ops.back(), "alltoallv");
  EXPECT_EQ(options.types, (std::vector<DataType>{DataType::float32, DataType::bfloat16}));
  EXPECT_EQ(options.reduce_ops.size(), 5u);
  EXPECT_EQ(options.min_bytes, 1024u);
  EXPECT_EQ(parse({"-d", "all"}).types.size(), 10u);
}

TEST(Options, RejectsBadValuesWithOneLine) {
  expect_usage_error({"--ops", "allreduce"}, "'allreduce'");
  expect_usage_error({"--ops", "all_reduce,"}, "empty entry");
  expect_usage_error({"-d", "float16x"}, "'float16x'");
  expect_usage_error({"-o", "mul"}, "'mul'");
  expect_usage_error({"-b", "1M", "-e", "1K"}, "larger than --max-bytes");
  expect_usage_error({"-b", "0"}, "'0'");
  expect_usage_error({"-e", "12Q"}, "'12Q'");
  expect_usage_error({"-f", "1", "-b", "8", "-e", "16"}, "--step-factor");
  expect_usage_error({"-n", "0"}, "--iters 0");
  expect_usage_error({"-w", "-1"}, "--warmup -1");
  expect_usage_error({"-m", "0"}, "--agg-iters 0");
  expect_usage_error({"-G", "-2"}, "--graph -2");
  expect_usage_error({"-c", "yes"}, "--check 'yes'");
  expect_usage_error({"--in-place", "sideways"}, "'sideways'");
  expect_usage_error({"--timing", "twice"}, "--timing 'twice'");
  expect_usage_error({"-g", "2,x"}, "'x'");
  expect_usage_error({"-g", "4-2"}, "'4-2'");
  expect_usage_error({"-r", "-1"}, "'-1'");
  expect_usage_error({"--timeout", "0"}, "--timeout 0");
  expect_usage_error({"--no-such-flag"}, "--no-such-flag");
}

// Hostile values: each is refused in one line that names it, before any plan is made.
TEST(Options, HostileValuesAreBounded) {
  const UsageErrorTable table = {
      {{"-f", "1.0"}, "--step-factor 1.0 is not above 1 and at most 1024"},
      {{"-f", "0.5"}, "--step-factor 0.5"},
      {{"-f", "inf"}, "--step-factor inf"},
      {{"-f", "nan"}, "--step-factor nan"},
      {{"-f", "1e308"}, "--step-factor 1e308 "},
      {{"--seed", "-1"}, "--seed '-1'"},
      {{"--seed", "18446744073709551616"}, "--seed '18446744073709551616'"},
      {{"--seed", "0x1ffffffffffffffff"}, "--seed '0x1ffffffffffffffff'"},
      {{"--seed", "12ab"}, "--seed '12ab'"},
      {{"-n", "100000000"}, "--iters 100000000"},
      {{"-w", "100000000"}, "--warmup 100000000"},
      {{"-m", "5000"}, "--agg-iters 5000"},
      {{"-G", "100000000"}, "--graph 100000000"},
      {{"--timeout", "1e9"}, "--timeout 1e9 is not above 0 and at most 1000000 seconds"},
      {{"--algo", "ring:ctas=0"}, "ring_ctas=0"},
      {{"--algo", "ring:"}, "'' is not SETTING=VALUE"},
  };
  expect_usage_errors(table);
  EXPECT_EQ(parse({"--seed", "0xffffffffffffffff"}).run.seed, ~std::uint64_t{0});
  EXPECT_EQ(parse({"--seed", "42"}).run.seed, 42u);
}

// What the stop rule's options, --confidence, --repeat and --json parse into.
struct StopAndOutput {
  double max_noise_pct;
  int min_samples;
  double min_time_s;
  double max_time_s;
  double confidence;
  int repeats;
  std::string json_path;
};

void expect_stop_and_output(const Options& options, const StopAndOutput& expected) {
  const StopRule& stop = options.run.stop;
  EXPECT_EQ(stop.max_noise_pct, expected.max_noise_pct);
  EXPECT_EQ(stop.adaptive(), expected.max_noise_pct > 0);
  EXPECT_EQ(stop.min_samples, expected.min_samples);
  EXPECT_EQ(stop.min_time_s, expected.min_time_s);
  EXPECT_EQ(stop.max_time_s, expected.max_time_s);
  EXPECT_DOUBLE_EQ(options.run.confidence, expected.confidence);
  EXPECT_EQ(options.repeats, expected.repeats);
  EXPECT_EQ(options.json_path, expected.json_path);
  // --json writes every rank's samples.
  EXPECT_EQ(options.run.keep_rank_samples, !expected.json_path.empty());
}

TEST(Options, StopRuleRepeatsAndJson) {
  expect_stop_and_output(parse({}), {1, 20, 0, 0.1, 0.95, 1, ""});  // stop when stable by default
  expect_stop_and_output(
      parse({"--max-noise", "0.5", "--min-iters", "50", "--min-time", "0.25", "--max-time", "3",
             "--confidence", "99", "--repeat", "3", "--json", "samples.jsonl"}),
      {0.5, 50, 0.25, 3, 0.99, 3, "samples.jsonl"});
  EXPECT_DOUBLE_EQ(parse({"--confidence", "50"}).run.confidence, 0.5);
  EXPECT_EQ(parse({"--max-noise", "100"}).run.stop.max_noise_pct, 100);
  EXPECT_FALSE(parse({"--max-noise", "0"}).run.stop.adaptive());  // fixed iterations
}

TEST(Options, CheckTakesACountOrOnOff) {
  EXPECT_EQ(parse({"-c", "5"}).run.check_iters, 5);
  EXPECT_EQ(parse({"--check", "0"}).run.check_iters, 0);
  EXPECT_EQ(parse({"-c", "on"}).run.check_iters, 1);
  EXPECT_EQ(parse({"-c", "off"}).run.check_iters, 0);
  EXPECT_EQ(parse({"-c", "true"}).run.check_iters, 1);
  EXPECT_EQ(parse({"-c", "false"}).run.check_iters, 0);
  EXPECT_EQ(parse({"-c", "1000000"}).run.check_iters, kMaxCheckIterations);
}

// Each bad value of the stop rule, --confidence, --repeat and -c: one line naming the option and
// the value.
TEST(Options, RejectsBadStopRuleRepeatAndCheckValues) {
  const UsageErrorTable table = {
      {{"--max-noise", "-1"}, "--max-noise -1 "},
      {{"--max-noise", "101"}, "--max-noise 101 "},
      {{"--max-noise", "nan"}, "--max-noise nan: not a number"},
      {{"--confidence", "100"}, "--confidence 100 "},
      {{"--confidence", "40"}, "--confidence 40 "},
      {{"--min-time", "2", "--max-time", "1", "--max-noise", "1"},
       "--min-time 2 is longer than --max-time 1"},
      {{"--min-time", "-1"}, "--min-time -1 "},
      {{"--max-time", "1e9"}, "--max-time 1e9 is not from 0 to 86400 seconds"},
      {{"--min-iters", "0"}, "--min-iters 0 "},
      {{"--repeat", "0"}, "--repeat 0 "},
      {{"--repeat", "1001"}, "--repeat 1001 "},
      {{"-c", "-1"}, "--check '-1'"},
      {{"-c", "x"}, "--check 'x'"},
      {{"-c", "1000001"}, "--check '1000001'"},
  };
  expect_usage_errors(table);
}

// Rows keep the level to 3 decimals: every level --confidence accepts must read back from the
// report (99.9999 would be written as 100.000, which no reader takes for a level).
TEST(Options, AcceptedConfidenceLevelsReadBackFromTheReport) {
  const report::Column& column = report::kColumns[report::column_index("confidence_pct")];
  for (const char* level : {"50", "95", "99.9", "99.999"}) {
    report::ReportRow row;
    row.time.confidence_pct = parse({"--confidence", level}).run.confidence * 100;
    report::ReportRow back;
    EXPECT_NO_THROW(column.parse(back, column.format(row)); column.check(back);) << level;
  }
  expect_usage_error({"--confidence", "99.9999"},
                     "--confidence 99.9999 is not a percentage from 50 to 99.999");
}

// A factor too small to move the smallest sizes still advances them; one too small for the
// range is refused by the size cap rather than running forever.
TEST(Options, SmallStepFactorsAdvanceOrAreRefused) {
  const std::vector<std::size_t> sizes = sweep_sizes(parse({"-f", "1.1", "-b", "8", "-e", "16"}));
  EXPECT_EQ(sizes, (std::vector<std::size_t>{8, 9, 10, 11, 12, 13, 14, 15, 16}));
  EXPECT_THROW(sweep_sizes(parse({"-f", "1.0000001"})), UsageError);
}

// A file under the test's temporary directory; returns its path.
std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

TEST(Options, AlltoallvSpreadsAndMatrix) {
  const Options defaults = parse({});
  EXPECT_EQ(defaults.a2av_spreads, std::vector<double>{1.0});  // nccl-tests' default
  EXPECT_EQ(defaults.a2av_matrix, nullptr);
  EXPECT_EQ(parse({"--a2av-spread", "0,0.5,1,.5,-0"}).a2av_spreads,
            (std::vector<double>{0.0, 0.5, 1.0}));
  const std::string path =
      write_file("traffic_2x2.txt", "# bytes from row to column\n0 64K\n1M, 16\n");
  const Options with_matrix = parse({"--ops", "alltoallv", "--a2av-matrix", path});
  EXPECT_EQ(with_matrix.a2av_matrix_path, path);
  ASSERT_NE(with_matrix.a2av_matrix, nullptr);
  EXPECT_EQ(with_matrix.a2av_matrix->ranks, 2);
  EXPECT_EQ(with_matrix.a2av_matrix->at(1, 0), 1u << 20);
}

// Bad spreads name the entry; a bad matrix file is one line naming the file, the line and the
// value, at parse time.
TEST(Options, RejectsBadAlltoallvTraffic) {
  const std::string bad_value = write_file("traffic_bad_value.txt", "0 16\n16 abc\n");
  const std::string negative = write_file("traffic_negative.txt", "# header\n\n0 -16\n16 0\n");
  const std::string ragged = write_file("traffic_ragged.txt", "0 16 32\n16 0\n");
  const std::string missing = ::testing::TempDir() + "no_such_traffic_matrix.txt";
  const UsageErrorTable table = {
      {{"--a2av-spread", "1.5"}, "--a2av-spread '1.5' is outside 0..1"},
      {{"--a2av-spread", "-0.25"}, "--a2av-spread '-0.25' is outside 0..1"},
      {{"--a2av-spread", "half"}, "--a2av-spread 'half' is not a number"},
      {{"--a2av-spread", "nan"}, "--a2av-spread 'nan' is not a number"},
      {{"--a2av-spread", " 0.5"}, "--a2av-spread ' 0.5' is not a number"},
      {{"--a2av-spread", "0.5x"}, "--a2av-spread '0.5x' is not a number"},
      {{"--a2av-spread", "0,,1"}, "--a2av-spread '0,,1' has an empty entry"},
      {{"--a2av-matrix", bad_value},
       "traffic matrix " + bad_value +
           " line 2: 'abc' is not a byte size (expected e.g. 8, 64K, 1M, 8G)"},
      {{"--a2av-matrix", negative}, "traffic matrix " + negative + " line 3: '-16' is negative"},
      {{"--a2av-matrix", ragged},
       "traffic matrix " + ragged + " line 2: a row of 2 values where the first row has 3"},
      {{"--a2av-matrix", missing},
       "traffic matrix " + missing + ": cannot open: No such file or directory"},
      {{"--a2av-matrix", ""}, "--a2av-matrix '' names no file"},
      {{"--a2av-matrix", ragged, "--a2av-spread", "0.5"},
       "--a2av-spread and --a2av-matrix exclude each other"},
  };
  expect_usage_errors(table);
}

TEST(Options, GpuCounts) {
  EXPECT_EQ(parse_gpu_counts("2,4", 8), (std::vector<int>{2, 4}));
  EXPECT_EQ(parse_gpu_counts("1-3,2", 8), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(parse_gpu_counts("all", 4), (std::vector<int>{4}));
  EXPECT_THROW(parse_gpu_counts("all", 0), UsageError);
  EXPECT_THROW(parse_gpu_counts("0", 4), UsageError);
}

TEST(Options, SweepRejectsMoreGpusThanVisibleAndRootsOutsideTheRanks) {
  Options options = parse({"-g", "2,4"});
  try {
    build_sweep(options, 2);
    ADD_FAILURE() << "4 GPUs accepted with 2 visible";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("asks for 4 GPUs but 2 are available"),
              std::string::npos)
        << error.what();
  }
  EXPECT_NO_THROW(build_sweep(options, 2, /*listing=*/true));

  options = parse({"--ops", "broadcast", "-g", "2,4", "-r", "3"});
  try {
    build_sweep(options, 4);
    ADD_FAILURE() << "root 3 accepted for 2 ranks";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("--root 3 is outside the 2 ranks"), std::string::npos)
        << error.what();
  }
  // Roots do not apply to ops without one.
  EXPECT_NO_THROW(build_sweep(parse({"--ops", "all_reduce", "-g", "2", "-r", "3"}), 4));
  EXPECT_THROW(build_sweep(parse({"--algo", "warp_drive", "-g", "2"}), 4), UsageError);
}

// The communicator axes: NCCL's names in any case, written canonically, "default" as NCCL's own
// choice; --split takes an NCCL_TESTS_SPLIT rule.
TEST(Options, CommunicatorAxes) {
  const Options defaults = parse({});
  EXPECT_EQ(defaults.axes.nccl_algos, std::vector<std::string>{""});
  EXPECT_EQ(defaults.axes.nccl_protos, std::vector<std::string>{""});
  EXPECT_EQ(defaults.axes.nccl_max_ctas, std::vector<int>{0});
  EXPECT_FALSE(defaults.split.has_value());
  const Options options = parse({"--nccl-algo", "ring,tree,default", "--nccl-proto", "ll128,Simple",
                                 "--nccl-max-ctas", "4,default", "--split", "mod 2"});
  EXPECT_EQ(options.axes.nccl_algos, (std::vector<std::string>{"Ring", "Tree", ""}));
  EXPECT_EQ(options.axes.nccl_protos, (std::vector<std::string>{"LL128", "Simple"}));
  EXPECT_EQ(options.axes.nccl_max_ctas, (std::vector<int>{4, 0}));
  ASSERT_TRUE(options.split.has_value());
  EXPECT_EQ(options.split->text(), "MOD 2");
}

TEST(Options, RejectsBadCommunicatorAxes) {
  expect_usage_errors({
      {{"--nccl-algo", "Ring,Bus"}, "--nccl-algo 'Bus' is not one of Ring, Tree"},
      {{"--nccl-algo", ""}, "--nccl-algo '' has an empty entry"},
      {{"--nccl-proto", "LL64"}, "--nccl-proto 'LL64' is not one of LL, LL128, Simple, default"},
      {{"--nccl-max-ctas", "0"}, "--nccl-max-ctas '0' is not a CTA count from 1 to 64 or default"},
      {{"--nccl-max-ctas", "65"}, "'65'"},
      {{"--split", "XOR 1"}, "split rule 'XOR 1' has an unknown operator"},
      {{"--split", "MOD 0"}, "divides by zero"},
  });
}

// NCCL applies NCCL_MAX_CTAS over ncclConfig_t, so --nccl-max-ctas with it set would measure
// something else than its rows say.
TEST(Options, NcclMaxCtasInTheEnvironmentConflictsWithTheAxis) {
  setenv("NCCL_MAX_CTAS", "16", 1);
  expect_usage_error({"--nccl-max-ctas", "8"}, "NCCL_MAX_CTAS=16 in the environment");
  EXPECT_NO_THROW(parse({"--nccl-max-ctas", "default"}));
  unsetenv("NCCL_MAX_CTAS");
  EXPECT_NO_THROW(parse({"--nccl-max-ctas", "8"}));
}

// The user's NCCL_ALGO, NCCL_PROTO and NCCL_MAX_CTAS are what a "default" entry runs, so the rows
// name them: `NCCL_ALGO=Ring collbench` and `collbench --nccl-algo Ring` give rows of one key,
// which collreport compare can pair.
TEST(Options, NcclVariablesInTheEnvironmentAreNamedInTheRows) {
  const auto with = [](std::vector<std::string> extra) {
    std::vector<std::string> words = {
        "--ops", "all_reduce,alltoallv", "--algo",     "nccl,ring", "-g",   "2", "-b", "1K", "-e",
        "4K",    "--register",           "none,local", "--split",   "DIV 2"};
    words.insert(words.end(), extra.begin(), extra.end());
    return parse(words);
  };
  const auto keys = [](const Options& options) {
    std::vector<std::string> keys;
    for (const Case& c : build_sweep(options, 2))
      keys.push_back(benchmark_name(c) + " | " + c.config());
    return keys;
  };
  const std::vector<std::string> by_options =
      keys(with({"--nccl-algo", "Ring", "--nccl-proto", "LL128", "--nccl-max-ctas", "16"}));
  setenv("NCCL_ALGO", "ring", 1);
  setenv("NCCL_PROTO", "ll128", 1);
  setenv("NCCL_MAX_CTAS", "16", 1);
  const Options from_environment = with({});
  // An explicit entry stays; "default" takes the variable's value.
  const Options mixed = parse({"--nccl-algo", "Tree,default,ring"});
  unsetenv("NCCL_ALGO");
  unsetenv("NCCL_PROTO");
  unsetenv("NCCL_MAX_CTAS");
  EXPECT_EQ(from_environment.axes.nccl_algos, std::vector<std::string>{"Ring"});
  EXPECT_EQ(from_environment.axes.nccl_protos, std::vector<std::string>{"LL128"});
  EXPECT_EQ(from_environment.axes.nccl_max_ctas, std::vector<int>{16});
  EXPECT_EQ(keys(from_environment), by_options);
  EXPECT_EQ(mixed.axes.nccl_algos, (std::vector<std::string>{"Tree", "Ring"}));
  const Case first = build_sweep(from_environment, 2).front();
  EXPECT_EQ(first.config(),
            "nccl_algo=Ring;nccl_proto=LL128;nccl_max_ctas=16;split=DIV 2;groups=1");

  setenv("NCCL_MAX_CTAS", "99", 1);
  expect_usage_error({}, "NCCL_MAX_CTAS '99' in the environment is not a CTA count from 1 to 64");
  unsetenv("NCCL_MAX_CTAS");
  EXPECT_EQ(parse({}).axes.nccl_max_ctas, std::vector<int>{0});
}

}  // namespace
}  // namespace collbench
