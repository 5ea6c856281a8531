// Which setting, on the CPU: the swept axes expand into combinations in collbench's order (the
// registration outermost, the CTA limit fastest), each named by its config as collbench writes
// it; the summary picks the fastest combination per row and for the window against the first,
// a clear winner as faster and one whose interval overlaps the first's as within noise.
#include <gtest/gtest.h>

#include <sstream>

#include "plan/combination_summary.hpp"
#include "report/replay_text.hpp"

namespace collbench::replay::testing {
namespace {

TEST(ReplayCombinations, TheDefaultsAreOneCombinationNamedDefault) {
  const std::vector<ReplayCombination> combinations = replay_combinations(CommunicatorAxes{});
  ASSERT_EQ(combinations.size(), 1u);
  EXPECT_EQ(combinations[0].config(), "");
  EXPECT_EQ(combinations[0].name(), "default");
}

TEST(ReplayCombinations, RegistrationOutermostThenAlgorithmProtocolAndCtas) {
  CommunicatorAxes axes;
  axes.nccl_algos = {"Ring", "Tree"};
  axes.nccl_protos = {"", "LL"};
  axes.nccl_max_ctas = {0, 8};
  axes.registrations = {BufferRegistration::none, BufferRegistration::local};
  const std::vector<ReplayCombination> combinations = replay_combinations(axes);
  ASSERT_EQ(combinations.size(), 16u);
  const std::vector<std::string> first_eight = {
      "nccl_algo=Ring",
      "nccl_algo=Ring;nccl_max_ctas=8",
      "nccl_algo=Ring;nccl_proto=LL",
      "nccl_algo=Ring;nccl_proto=LL;nccl_max_ctas=8",
      "nccl_algo=Tree",
      "nccl_algo=Tree;nccl_max_ctas=8",
      "nccl_algo=Tree;nccl_proto=LL",
      "nccl_algo=Tree;nccl_proto=LL;nccl_max_ctas=8",
  };
  for (std::size_t i = 0; i < first_eight.size(); ++i) {
    EXPECT_EQ(combinations[i].config(), first_eight[i]);
    EXPECT_EQ(combinations[i].registration, BufferRegistration::none);
    EXPECT_EQ(combinations[i + 8].config(), first_eight[i] + ";register=local");
  }
  EXPECT_EQ(combinations[2].communicators.nccl_proto, "LL");
  EXPECT_EQ(combinations[1].communicators.nccl_max_ctas, 8);
  EXPECT_FALSE(combinations[0].communicators.split.has_value());
}

TimeStats median(double p50, double lo, double hi) {
  TimeStats time;
  time.p50_us = p50;
  time.p50_lo_us = lo;
  time.p50_hi_us = hi;
  time.confidence_pct = 95;
  time.samples = 20;
  return time;
}

// One all_reduce row and the window, with the given time per call and window.
CombinationRun run_of(std::string proto, TimeStats per_call, TimeStats window) {
  CombinationRun run;
  run.combination.communicators.nccl_proto = std::move(proto);
  OpKindFigures row;
  row.comm = 1;
  row.op = "all_reduce";
  row.dtype = DataType::float32;
  row.redop = ReduceOp::sum;
  row.time_per_call = per_call;
  run.figures.kinds = {row};
  run.figures.window = window;
  return run;
}

TEST(CombinationSummary, AClearWinnerIsFasterByTheRatioOfTheMedians) {
  const std::vector<CombinationRun> runs = {
      run_of("", median(20, 19, 21), median(100, 98, 102)),
      run_of("LL", median(10, 9.5, 10.5), median(99, 97, 101)),
      run_of("Simple", median(25, 24, 26), median(130, 128, 132)),
  };
  const CombinationSummary summary = summarize_combinations(runs);
  ASSERT_EQ(summary.rows.size(), 1u);
  const CombinationChoice& row = summary.rows[0];
  EXPECT_EQ(row.what, "comm 1 all_reduce float sum");
  EXPECT_EQ(row.fastest, 1u);
  EXPECT_EQ(row.fastest_name, "nccl_proto=LL");
  EXPECT_DOUBLE_EQ(row.speedup, 2);
  EXPECT_FALSE(row.within_noise);
  EXPECT_EQ(choice_text(row),
            "nccl_proto=LL: 10.0 [9.5, 10.5] us against 20.0 [19.0, 21.0] us, "
            "2.00x faster");
  // The window: LL's median is lower, but its interval overlaps the default's.
  EXPECT_EQ(summary.window.fastest, 1u);
  EXPECT_TRUE(summary.window.within_noise);
  EXPECT_NE(choice_text(summary.window).find("within noise"), std::string::npos);
}

TEST(CombinationSummary, TheDefaultCanBeFastest) {
  const std::vector<CombinationRun> runs = {
      run_of("", median(10, 9, 11), median(50, 49, 51)),
      run_of("LL", median(12, 11.5, 12.5), median(60, 59, 61)),
  };
  const CombinationSummary summary = summarize_combinations(runs);
  EXPECT_EQ(summary.rows[0].fastest, 0u);
  EXPECT_EQ(summary.rows[0].fastest_name, "default");
  EXPECT_DOUBLE_EQ(summary.rows[0].speedup, 1);
  EXPECT_EQ(choice_text(summary.window), "the first is fastest");
}

TEST(CombinationSummary, AMedianWithoutAnIntervalCannotBeToldApart) {
  TimeStats few;
  few.p50_us = 5;
  EXPECT_TRUE(intervals_overlap(few, median(20, 19, 21)));
  EXPECT_FALSE(intervals_overlap(median(5, 4, 6), median(20, 19, 21)));
  EXPECT_TRUE(intervals_overlap(median(5, 4, 19), median(20, 19, 21)));  // touching ends overlap
  const std::vector<CombinationRun> runs = {run_of("", median(20, 19, 21), median(1, 1, 1)),
                                            run_of("LL", few, few)};
  EXPECT_TRUE(summarize_combinations(runs).rows[0].within_noise);
}

TEST(CombinationSummary, TheConsoleNamesTheCombinationsAndTheFastestPerRow) {
  const std::vector<CombinationRun> runs = {
      run_of("", median(20, 19, 21), median(100, 98, 102)),
      run_of("LL", median(10, 9.5, 10.5), median(99, 97, 101)),
  };
  std::ostringstream out;
  print_combinations_line({runs[0].combination, runs[1].combination}, out);
  print_combination_summary(summarize_combinations(runs), "default", out);
  const std::string text = out.str();
  EXPECT_NE(text.find("# 2 combinations of the swept settings, one after another, each with its "
                      "own communicators and warm-up: default, nccl_proto=LL\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  comm 1 all_reduce float sum: nccl_proto=LL: 10.0 [9.5, 10.5] us against "
                      "20.0 [19.0, 21.0] us, 2.00x faster\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  window: nccl_proto=LL: "), std::string::npos) << text;
  std::ostringstream one;
  print_combinations_line({runs[0].combination}, one);
  EXPECT_EQ(one.str(), "");
}

TEST(CombinationSummary, ARowMissingFromACombinationIsALogicError) {
  std::vector<CombinationRun> runs = {run_of("", median(20, 19, 21), median(1, 1, 1)),
                                      run_of("LL", median(20, 19, 21), median(1, 1, 1))};
  runs[1].figures.kinds[0].comm = 2;
  EXPECT_THROW(summarize_combinations(runs), std::logic_error);
  EXPECT_THROW(summarize_combinations({}), std::logic_error);
}

}  // namespace
}  // namespace collbench::replay::testing
