// The pair schedule: every ordered pair once, no rank twice in a round, O(N) rounds.
#include "probes/pair_schedule.hpp"

#include <gtest/gtest.h>

#include <set>
#include <utility>

namespace collbench::diagnose {
namespace {

TEST(PairSchedule, EveryOrderedPairOnceAndNoRankTwiceInARound) {
  for (int ranks = 2; ranks <= 17; ++ranks) {
    SCOPED_TRACE(ranks);
    const std::vector<Round> rounds = pair_rounds(ranks);
    const std::size_t expected_rounds = ranks % 2 == 0 ? 2 * (ranks - 1) : 2 * ranks;
    EXPECT_EQ(rounds.size(), expected_rounds);
    std::set<std::pair<int, int>> seen;
    for (const Round& round : rounds) {
      std::set<int> busy;
      EXPECT_FALSE(round.empty());
      for (const Transfer& transfer : round) {
        EXPECT_NE(transfer.src, transfer.dst);
        EXPECT_TRUE(transfer.src >= 0 && transfer.src < ranks && transfer.dst >= 0 &&
                    transfer.dst < ranks);
        EXPECT_TRUE(busy.insert(transfer.src).second) << "rank " << transfer.src << " twice";
        EXPECT_TRUE(busy.insert(transfer.dst).second) << "rank " << transfer.dst << " twice";
        EXPECT_TRUE(seen.insert({transfer.src, transfer.dst}).second)
            << transfer.src << "->" << transfer.dst << " twice";
      }
    }
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(ranks * (ranks - 1)));
  }
}

TEST(PairSchedule, EachRoundUsesEveryRankButTheBye) {
  for (int ranks : {8, 9}) {
    for (const Round& round : pair_rounds(ranks)) EXPECT_EQ(round.size(), std::size_t(ranks / 2));
  }
}

TEST(PairSchedule, TwoRanksAreTwoRoundsOneWayEach) {
  const std::vector<Round> rounds = pair_rounds(2);
  ASSERT_EQ(rounds.size(), 2u);
  ASSERT_EQ(rounds[0].size(), 1u);
  ASSERT_EQ(rounds[1].size(), 1u);
  EXPECT_EQ(rounds[0][0].src, 0);
  EXPECT_EQ(rounds[0][0].dst, 1);
  EXPECT_EQ(rounds[1][0].src, 1);
  EXPECT_EQ(rounds[1][0].dst, 0);
}

TEST(PairSchedule, FewerThanTwoRanksHaveNoRounds) {
  EXPECT_TRUE(pair_rounds(0).empty());
  EXPECT_TRUE(pair_rounds(1).empty());
  EXPECT_TRUE(pair_rounds(-3).empty());
}

}  // namespace
}  // namespace collbench::diagnose
