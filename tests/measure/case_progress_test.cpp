// The timeout message: which ranks had not started an operation, which were waiting in it, which
// finished, and which were absent or unknown; exact lines from the ranks' progress.
#include "measure/case_progress.hpp"

#include <gtest/gtest.h>

namespace collbench {
namespace {

const std::string kCase = "all_reduce nccl float sum 2r 1 MiB";

RankProgress progress(int rank, std::int64_t launched, std::int64_t expected, bool idle,
                      const std::string& bus = "") {
  return {
      rank,     "h",      rank, bus.empty() ? "0000:0" + std::to_string(6 + rank) + ":00.0" : bus,
      launched, expected, idle};
}

TEST(TimeoutMessage, NamesTheRankThatHadNotStartedAndTheOnesWaitingInside) {
  EXPECT_EQ(
      timeout_message(kCase, 5, 2, {progress(1, 10, 20, true), progress(0, 20, 20, false)},
                      UnreportedRanks::unknown),
      "all_reduce nccl float sum 2r 1 MiB did not finish within 5 s: rank 1 (host h, GPU 1 "
      "[0000:07:00.0]) had not started operation 11 of 20 (launched 10, idle); waiting inside it: "
      "rank 0 (host h, GPU 0 [0000:06:00.0])");
}

TEST(TimeoutMessage, SeveralBehindFinishedAndAbsentRanks) {
  EXPECT_EQ(timeout_message("c", 0.5, 5,
                            {progress(0, 24, 24, false), progress(3, 23, 24, false),
                             progress(1, 20, 24, true), progress(2, 24, 24, true)},
                            UnreportedRanks::absent),
            "c did not finish within 0.5 s: rank 1 (host h, GPU 1 [0000:07:00.0]) had not started "
            "operation 21 "
            "of 24 (launched 20, idle); rank 3 (host h, GPU 3 [0000:09:00.0]) had not started "
            "operation 24 of 24 "
            "(launched 23, busy); waiting inside it: rank 0 (host h, GPU 0 [0000:06:00.0]); "
            "finished: rank 2 "
            "(host h, GPU 2 [0000:08:00.0]); absent (no answer over MPI): rank 4");
}

// A rank whose process asked for fewer operations than another's (it never reached the next
// batch) is behind the most any process asked for.
TEST(TimeoutMessage, TheMostAnyRankWasAskedForIsTheMark) {
  EXPECT_EQ(timeout_message("c", 5, 2, {progress(0, 26, 26, false), progress(1, 6, 6, true)},
                            UnreportedRanks::absent),
            "c did not finish within 5 s: rank 1 (host h, GPU 1 [0000:07:00.0]) had not started "
            "operation 7 of "
            "26 (launched 6, idle); waiting inside it: rank 0 (host h, GPU 0 [0000:06:00.0])");
}

TEST(TimeoutMessage, NobodyBehindButStillRunningAndOthersUnknown) {
  RankProgress no_bus = progress(1, 25, 25, false);
  no_bus.pci_bus_id.clear();
  EXPECT_EQ(timeout_message("c", 300, 4, {no_bus}, UnreportedRanks::unknown),
            "c did not finish within 300 s: launched all 25 operations, still running: rank 1 "
            "(host h, GPU 1); "
            "unknown (other processes, no MPI to ask): rank 0, rank 2, rank 3");
  EXPECT_EQ(timeout_message("c", 5, 2, {progress(1, 25, 25, false), progress(0, 25, 25, false)},
                            UnreportedRanks::unknown),
            "c did not finish within 5 s: launched all 25 operations, still running: rank 0 (host "
            "h, GPU 0 "
            "[0000:06:00.0]), rank 1 (host h, GPU 1 [0000:07:00.0])");
}

TEST(TimeoutMessage, NoAnswerAtAllLeavesEveryRankAbsent) {
  EXPECT_EQ(timeout_message("c", 5, 2, {}, UnreportedRanks::absent),
            "c did not finish within 5 s: absent (no answer over MPI): rank 0, rank 1");
}

TEST(LaunchCounts, CountPerLocalRankAndWhatWasAskedFor) {
  LaunchCounts counts(2);
  EXPECT_EQ(counts.launched(0), 0);
  EXPECT_EQ(counts.expected(), 0);
  counts.expect(5);
  counts.expect(20);
  counts.add(0);
  counts.add(1, 20);
  counts.add(0, 3);
  EXPECT_EQ(counts.launched(0), 4);
  EXPECT_EQ(counts.launched(1), 20);
  EXPECT_EQ(counts.expected(), 25);
}

}  // namespace
}  // namespace collbench
