// The interval rule on numbers: each decision, and its edges (exactly the minimum effect,
// touching intervals, a large change that the intervals cannot confirm).
#include "compare/decision.hpp"

#include <gtest/gtest.h>

namespace collbench::collreport {
namespace {

constexpr double kMinEffect = 0.03;

IntervalDecision decide(MedianInterval base, MedianInterval fresh) {
  return judge_by_intervals(base, fresh, kMinEffect).decision;
}

TEST(IntervalRule, ASignificantChangeBeyondTheMinimumEffectRegressesOrImproves) {
  const IntervalJudgement slower = judge_by_intervals({100, 99, 101}, {105, 104, 106}, kMinEffect);
  EXPECT_EQ(slower.decision, IntervalDecision::kRegressed);
  EXPECT_TRUE(slower.significant);
  EXPECT_DOUBLE_EQ(slower.change, 0.05);
  EXPECT_DOUBLE_EQ(slower.change_lo, (104.0 - 101) / 101);
  EXPECT_DOUBLE_EQ(slower.change_hi, (106.0 - 99) / 99);
  EXPECT_EQ(decide({100, 99, 101}, {95, 94, 96}), IntervalDecision::kImproved);
}

TEST(IntervalRule, ExactlyTheMinimumEffectIsNoChange) {
  EXPECT_EQ(decide({100, 99.5, 100.5}, {103, 102.5, 103.5}), IntervalDecision::kNoChange);
  EXPECT_EQ(decide({100, 99.5, 100.5}, {103.01, 102.5, 103.5}), IntervalDecision::kRegressed);
  EXPECT_EQ(decide({100, 99.5, 100.5}, {97, 96.5, 97.5}), IntervalDecision::kNoChange);
  EXPECT_EQ(decide({100, 99.5, 100.5}, {96.99, 96.5, 97.5}), IntervalDecision::kImproved);
}

TEST(IntervalRule, ASignificantChangeBelowTheMinimumEffectIsNoChange) {
  const IntervalJudgement j =
      judge_by_intervals({100, 99.5, 100.5}, {102, 101.5, 102.5}, kMinEffect);
  EXPECT_EQ(j.decision, IntervalDecision::kNoChange);
  EXPECT_TRUE(j.significant);
}

TEST(IntervalRule, OverlappingIntervalsWithinTheMinimumEffectAreNoChange) {
  // The range is [-1.5%, +2.5%]: whatever the truth, it is below 3%.
  const IntervalJudgement j = judge_by_intervals({100, 99, 101}, {100.5, 99.5, 101.5}, kMinEffect);
  EXPECT_EQ(j.decision, IntervalDecision::kNoChange);
  EXPECT_FALSE(j.significant);
}

TEST(IntervalRule, TouchingIntervalsAreNotSignificant) {
  // NEW's low end equals BASE's high end: d_lo = 0, not above it.
  const IntervalJudgement j = judge_by_intervals({100, 99, 101}, {105, 101, 109}, kMinEffect);
  EXPECT_FALSE(j.significant);
  EXPECT_EQ(j.decision, IntervalDecision::kInconclusive);
}

TEST(IntervalRule, WideIntervalsAreInconclusiveWhateverTheEstimate) {
  EXPECT_EQ(decide({100, 95, 105}, {101, 96, 106}), IntervalDecision::kInconclusive);
  // A 10% change the intervals cannot confirm is no regression either.
  EXPECT_EQ(decide({100, 95, 105}, {110, 100, 120}), IntervalDecision::kInconclusive);
  EXPECT_EQ(decide({100, 95, 105}, {90, 85, 100}), IntervalDecision::kInconclusive);
}

TEST(IntervalRule, RelativeChangeIsZeroAgainstZero) {
  EXPECT_EQ(relative_change(0, 5), 0);
  EXPECT_DOUBLE_EQ(relative_change(100, 105), 0.05);
}

}  // namespace
}  // namespace collbench::collreport
