// Bisection of a slow group on simulated groups: where it stops, and how often it measures.
#include "probes/bisection.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace collbench::diagnose {
namespace {

std::vector<int> ranks_up_to(int count) {
  std::vector<int> ranks(count);
  for (int rank = 0; rank < count; ++rank) ranks[rank] = rank;
  return ranks;
}

bool contains(const std::vector<int>& group, int rank) {
  return std::find(group.begin(), group.end(), rank) != group.end();
}

TEST(Bisection, OneSlowRankAmongEightEndsInAPairHoldingIt) {
  int calls = 0;
  const Narrowing narrowing = narrow_down(ranks_up_to(8), [&](const std::vector<int>& group) {
    ++calls;
    return contains(group, 5);
  });
  EXPECT_EQ(narrowing.smallest, (std::vector<int>{4, 5}));
  EXPECT_EQ(calls, 4);
  ASSERT_EQ(narrowing.trail.size(), 4u);
  EXPECT_EQ(narrowing.trail[0].ranks, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_FALSE(narrowing.trail[0].slow);
  EXPECT_EQ(narrowing.trail[1].ranks, (std::vector<int>{4, 5, 6, 7}));
  EXPECT_TRUE(narrowing.trail[1].slow);
  EXPECT_EQ(narrowing.trail[2].ranks, (std::vector<int>{4, 5}));
  EXPECT_TRUE(narrowing.trail[2].slow);
  EXPECT_EQ(narrowing.trail[3].ranks, (std::vector<int>{6, 7}));
  EXPECT_FALSE(narrowing.trail[3].slow);
}

TEST(Bisection, ASlowLinkBetweenTheHalvesStopsAtTheWholeGroup) {
  // Slow only while ranks 3 and 4 (one in each half) are both in the group.
  const Narrowing narrowing = narrow_down(ranks_up_to(8), [](const std::vector<int>& group) {
    return contains(group, 3) && contains(group, 4);
  });
  EXPECT_EQ(narrowing.smallest, ranks_up_to(8));
  ASSERT_EQ(narrowing.trail.size(), 2u);
  EXPECT_FALSE(narrowing.trail[0].slow);
  EXPECT_FALSE(narrowing.trail[1].slow);
}

TEST(Bisection, BothHalvesSlowStopsAtTheCurrentGroup) {
  // Rank 1 is slow, and so is the link 5-6: the halves of {0..7} are both slow.
  const Narrowing narrowing = narrow_down(ranks_up_to(8), [](const std::vector<int>& group) {
    return contains(group, 1) || (contains(group, 5) && contains(group, 6));
  });
  EXPECT_EQ(narrowing.smallest, ranks_up_to(8));
  EXPECT_EQ(narrowing.trail.size(), 2u);
}

TEST(Bisection, FollowsTheGivenOrderNotTheRankOrder) {
  // Sorted by node: node 0 holds ranks 0, 2, 4, 6 and node 1 the odd ones.
  const std::vector<int> by_node{0, 2, 4, 6, 1, 3, 5, 7};
  const Narrowing narrowing =
      narrow_down(by_node, [](const std::vector<int>& group) { return contains(group, 3); });
  EXPECT_EQ(narrowing.trail[0].ranks, (std::vector<int>{0, 2, 4, 6}));
  EXPECT_EQ(narrowing.smallest, (std::vector<int>{1, 3}));
}

TEST(Bisection, StopsWhereAHalfWouldBeSmallerThanTheMinimum) {
  const Narrowing narrowing = narrow_down(
      ranks_up_to(8), [](const std::vector<int>& group) { return contains(group, 6); }, 4);
  EXPECT_EQ(narrowing.smallest, (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(narrowing.trail.size(), 2u);
}

TEST(Bisection, OddGroupsSplitTheLowerHalfSmaller) {
  const Narrowing narrowing =
      narrow_down(ranks_up_to(7), [](const std::vector<int>& group) { return contains(group, 6); });
  EXPECT_EQ(narrowing.trail[0].ranks, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(narrowing.smallest, (std::vector<int>{5, 6}));
}

TEST(Bisection, AGroupTooSmallToSplitIsItsOwnAnswer) {
  int calls = 0;
  const Narrowing narrowing = narrow_down({3, 9, 4}, [&](const std::vector<int>&) {
    ++calls;
    return true;
  });
  EXPECT_EQ(narrowing.smallest, (std::vector<int>{3, 9, 4}));
  EXPECT_EQ(calls, 0);
  EXPECT_TRUE(narrowing.trail.empty());
}

TEST(Bisection, MeasuresAtMostTwiceLog2NPlusTwoTimes) {
  for (int size = 2; size <= 64; ++size) {
    for (int slow_rank = 0; slow_rank < size; ++slow_rank) {
      int calls = 0;
      const Narrowing narrowing =
          narrow_down(ranks_up_to(size), [&](const std::vector<int>& group) {
            ++calls;
            return contains(group, slow_rank);
          });
      EXPECT_LE(calls, 2 * std::log2(size) + 2) << size << " ranks, slow rank " << slow_rank;
      EXPECT_TRUE(contains(narrowing.smallest, slow_rank));
      EXPECT_LE(narrowing.smallest.size(), 3u) << size << " ranks";
      EXPECT_EQ(narrowing.trail.size(), static_cast<std::size_t>(calls));
    }
  }
}

}  // namespace
}  // namespace collbench::diagnose
