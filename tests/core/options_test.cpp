// Tests of command-line parsing: defaults, lists, and every bad-input error.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/errors.hpp"
#include "schema.hpp"
#include "sweep/options.hpp"
#include "sweep/sweep_plan.hpp"

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
}

TEST(Options, ExpandsAllAndDeduplicates) {
  const Options options = parse({"--ops", "all", "-d", "float,float,bf16", "-o", "all", "-b", "1K", "-e", "1M"});
  EXPECT_EQ(options.ops.size(), 9u);
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
  const std::vector<std::pair<std::vector<std::string>, std::string>> table = {
      {{"-f", "1.0"}, "--step-factor 1 "},
      {{"-f", "0.5"}, "--step-factor 0.5"},
      {{"-f", "inf"}, "--step-factor inf"},
      {{"-f", "nan"}, "--step-factor nan"},
      {{"-f", "1e308"}, "--step-factor 1e+308"},
      {{"--seed", "-1"}, "--seed '-1'"},
      {{"--seed", "18446744073709551616"}, "--seed '18446744073709551616'"},
      {{"--seed", "0x1ffffffffffffffff"}, "--seed '0x1ffffffffffffffff'"},
      {{"--seed", "12ab"}, "--seed '12ab'"},
      {{"-n", "100000000"}, "--iters 100000000"},
      {{"-w", "100000000"}, "--warmup 100000000"},
      {{"-m", "5000"}, "--agg-iters 5000"},
      {{"-G", "100000000"}, "--graph 100000000"},
      {{"--timeout", "1e9"}, "--timeout 1000000000"},
      {{"--algo", "ring:ctas=0"}, "ring_ctas=0"},
      {{"--algo", "ring:"}, "'' is not SETTING=VALUE"},
  };
  for (const auto& [words, fragment] : table) {
    SCOPED_TRACE(::testing::PrintToString(words));
    expect_usage_error(words, fragment);
  }
  EXPECT_EQ(parse({"--seed", "0xffffffffffffffff"}).run.seed, ~std::uint64_t{0});
  EXPECT_EQ(parse({"--seed", "42"}).run.seed, 42u);
}

// Rows keep the level to 3 decimals: every level --confidence accepts must read back from the
// report (99.9999 would be written as 100.000, which no reader takes for a level).
TEST(Options, AcceptedConfidenceLevelsReadBackFromTheReport) {
  const report::Column& column = report::kColumns[report::column_index("confidence_pct")];
  for (const char* level : {"50", "95", "99.9", "99.999"}) {
    report::ReportRow row;
    row.confidence_pct = parse({"--confidence", level}).run.confidence * 100;
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
    EXPECT_NE(std::string(error.what()).find("--root 3 is outside the 2 ranks"), std::string::npos) << error.what();
  }
  // Roots do not apply to ops without one.
  EXPECT_NO_THROW(build_sweep(parse({"--ops", "all_reduce", "-g", "2", "-r", "3"}), 4));
  EXPECT_THROW(build_sweep(parse({"--algo", "warp_drive", "-g", "2"}), 4), UsageError);
}

}  // namespace
}  // namespace collbench
