// Which runs of send/recv lines the NCCL-log import keeps as groups: runs both sides log alike stay
// groups, a run whose peer logs its matching lines apart is split, splitting propagates along a
// chain of runs, and the run numbering follows thread, communicator and stream.
#include "import/nccl_log_groups.hpp"

#include <gtest/gtest.h>

namespace collbench::replay::testing {
namespace {

NcclOpLine line_on(const std::string& comm, const std::string& stream) {
  NcclOpLine line;
  line.comm = comm;
  line.stream = stream;
  return line;
}

TEST(PointToPointRuns, ARunContinuesOnOneThreadCommunicatorAndStream) {
  PointToPointRuns runs;
  EXPECT_EQ(runs.run_of("t1", line_on("c", "s")), 0u);
  EXPECT_EQ(runs.run_of("t1", line_on("c", "s")), 0u);
  EXPECT_EQ(runs.run_of("t1", line_on("c", "s2")), 1u);  // another stream
  EXPECT_EQ(runs.run_of("t2", line_on("c", "s2")), 2u);  // another thread
  EXPECT_EQ(runs.run_of("t2", line_on("d", "s2")), 3u);  // another communicator
  runs.end_run();                                        // any other op between
  EXPECT_EQ(runs.run_of("t2", line_on("d", "s2")), 4u);
}

// A ring of three ranks on communicator 0, each rank's send and recv in one run: every run agrees.
TEST(InferredGroups, ARingLoggedAlikeOnEveryRankStaysGrouped) {
  InferredGroups groups(3);
  for (int rank = 0; rank < 3; ++rank) {
    groups.add(rank, 0, 0, rank, (rank + 1) % 3, true);
    groups.add(rank, 0, 0, rank, (rank + 2) % 3, false);
  }
  groups.settle();
  for (int rank = 0; rank < 3; ++rank) EXPECT_TRUE(groups.grouped(rank, 0)) << rank;
}

// Rank 0 logs send, send, recv, recv to rank 1 as one run; rank 1 logs each apart (other ops
// between): rank 0's run is issued one by one, as rank 1's are.
TEST(InferredGroups, ARunWhosePeerLogsItsMatchesApartIsSplit) {
  InferredGroups groups(2);
  groups.add(0, 0, 0, 0, 1, true);
  groups.add(0, 0, 0, 0, 1, true);
  groups.add(0, 0, 0, 0, 1, false);
  groups.add(0, 0, 0, 0, 1, false);
  for (std::size_t run = 0; run < 4; ++run) groups.add(1, run, 0, 1, 0, run >= 2);
  groups.settle();
  EXPECT_FALSE(groups.grouped(0, 0));
  for (std::size_t run = 0; run < 4; ++run) EXPECT_FALSE(groups.grouped(1, run));
}

// The matches of one run with one peer must lie in one run of that peer: rank 0's two sends in one
// run, rank 1's two receives in two runs of two ops each (with rank 2) -- rank 0's run is split.
TEST(InferredGroups, MatchesSpreadOverTwoRunsOfThePeerSplitTheRun) {
  InferredGroups groups(3);
  groups.add(0, 0, 0, 0, 1, true);
  groups.add(0, 0, 0, 0, 1, true);
  groups.add(1, 0, 0, 1, 0, false);
  groups.add(1, 0, 0, 1, 2, true);
  groups.add(1, 1, 0, 1, 0, false);
  groups.add(1, 1, 0, 1, 2, true);
  groups.add(2, 0, 0, 2, 1, false);
  groups.add(2, 0, 0, 2, 1, false);
  groups.settle();
  EXPECT_FALSE(groups.grouped(0, 0));
}

// A chain: rank 1's run pairs with rank 0's run and with rank 2's single op. Rank 1's run is split
// (its partner on rank 2 is alone), and then rank 0's run, whose partner is no longer a group.
TEST(InferredGroups, SplittingPropagatesAlongPartners) {
  InferredGroups groups(3);
  groups.add(0, 0, 0, 0, 1, true);
  groups.add(0, 0, 0, 0, 1, false);
  groups.add(1, 0, 0, 1, 0, false);
  groups.add(1, 0, 0, 1, 0, true);
  groups.add(1, 0, 0, 1, 2, true);
  groups.add(2, 0, 0, 2, 1, false);
  groups.settle();
  EXPECT_FALSE(groups.grouped(1, 0));
  EXPECT_FALSE(groups.grouped(0, 0));
  EXPECT_FALSE(groups.grouped(2, 0));
}

// Runs on different communicators are matched apart: a pair grouped alike on communicator 1 stays
// grouped whatever communicator 0 does.
TEST(InferredGroups, CommunicatorsAreMatchedApart) {
  InferredGroups groups(2);
  groups.add(0, 0, 0, 0, 1, true);  // alone on communicator 0, matched by rank 1's run 0
  groups.add(1, 0, 0, 1, 0, false);
  groups.add(0, 1, 1, 0, 1, true);
  groups.add(0, 1, 1, 0, 1, false);
  groups.add(1, 1, 1, 1, 0, false);
  groups.add(1, 1, 1, 1, 0, true);
  groups.settle();
  EXPECT_TRUE(groups.grouped(0, 1));
  EXPECT_TRUE(groups.grouped(1, 1));
  EXPECT_FALSE(groups.grouped(0, 0));  // one op: no group
}

}  // namespace
}  // namespace collbench::replay::testing
