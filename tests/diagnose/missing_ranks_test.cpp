// Naming the ranks that stopped a probe, from the progress each process saw at the deadline.
#include "probes/missing_ranks.hpp"

#include <gtest/gtest.h>

namespace collbench::diagnose {
namespace {

RankProgress progress(int rank, std::int64_t launched, std::int64_t expected, bool idle) {
  return {rank, "h", rank, "", launched, expected, idle};
}

std::vector<std::string> named(const std::vector<MissingRank>& missing) {
  std::vector<std::string> lines;
  for (const MissingRank& m : missing) lines.push_back(std::to_string(m.rank) + " " + m.what);
  return lines;
}

TEST(MissingRanks, TheRankBehindIsNamedNotTheOnesWaiting) {
  const auto missing = missing_ranks(
      "all_reduce", {progress(0, 7, 7, false), progress(1, 2, 7, true), progress(2, 7, 7, false)},
      3, true);
  EXPECT_EQ(named(missing),
            std::vector<std::string>{
                "1 all_reduce: had not started operation 3 of 7 (launched 2, idle)"});
}

TEST(MissingRanks, NobodyBehindButStillRunningHangs) {
  const auto missing =
      missing_ranks("copy", {progress(0, 7, 7, true), progress(1, 7, 7, false)}, 2, true);
  EXPECT_EQ(named(missing),
            std::vector<std::string>{"1 copy: launched all 7 operations, which never finished"});
}

TEST(MissingRanks, UnansweredRanksAreAbsentOrUnknown) {
  const std::vector<RankProgress> local = {progress(0, 7, 7, false)};
  EXPECT_EQ(named(missing_ranks("x", local, 2, true)),
            std::vector<std::string>{"1 x: absent: no answer over MPI"});
  EXPECT_EQ(named(missing_ranks("x", local, 2, false)),
            std::vector<std::string>{
                "1 x: another process, with no MPI to ask it; ranks 0 were waiting"});
  // A gather that timed out: this process's ranks did their part and are not named.
  EXPECT_EQ(named(missing_ranks("gather", {progress(0, 0, 0, true)}, 2, true)),
            std::vector<std::string>{"1 gather: absent: no answer over MPI"});
}

}  // namespace
}  // namespace collbench::diagnose
