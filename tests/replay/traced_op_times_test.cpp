// Op intervals from a kernel trace, on fabricated records: tags round-trip and refuse what does
// not fit; a direct step's kernels and copies make its interval from the iteration's start marker;
// a graph's nodes take their step from the capture and their iteration from the launch; other
// ranks' and iterations' work, untagged and gap work, and work that started before the marker
// are left out; a step with no work is empty where the rank's earlier steps ended; a missing start
// marker is an error naming the rank and iteration.
#include "plan/traced_op_times.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace collbench::replay::testing {
namespace {

constexpr std::uint64_t kBaseNs = 1'700'000'000'000'000'000ull;  // a CUPTI-like clock

std::uint64_t tag(int rank, int iteration, int step) {
  return pack_replay_tag({rank, iteration, step});
}

TracedActivity direct(int rank, int iteration, int step, std::uint64_t start_ns,
                      std::uint64_t end_ns) {
  return {tag(rank, iteration, step), 0, kBaseNs + start_ns, kBaseNs + end_ns};
}

TracedActivity graph_node(int rank, int iteration, int step, std::uint64_t start_ns,
                          std::uint64_t end_ns) {
  return {tag(rank, iteration, kGraphLaunchStep), tag(rank, kCapturedIteration, step),
          kBaseNs + start_ns, kBaseNs + end_ns};
}

TEST(ReplayTag, RoundTripsAndIsNeverZero) {
  for (const ReplayTag& original :
       {ReplayTag{0, 0, 0},
        ReplayTag{kMostTracedRanks - 1, kCapturedIteration, kIterationStartStep},
        ReplayTag{3, 17, kGraphLaunchStep}, ReplayTag{1, 0, 12345}}) {
    const std::uint64_t packed = pack_replay_tag(original);
    EXPECT_NE(packed, 0u);
    const std::optional<ReplayTag> back = unpack_replay_tag(packed);
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(back->rank, original.rank);
    EXPECT_EQ(back->iteration, original.iteration);
    EXPECT_EQ(back->step, original.step);
  }
  EXPECT_FALSE(unpack_replay_tag(0).has_value());
  EXPECT_FALSE(unpack_replay_tag(42).has_value());  // someone else's tag
}

TEST(ReplayTag, RefusesWhatDoesNotFit) {
  EXPECT_THROW(pack_replay_tag({kMostTracedRanks, 0, 0}), std::invalid_argument);
  EXPECT_THROW(pack_replay_tag({-1, 0, 0}), std::invalid_argument);
  EXPECT_THROW(pack_replay_tag({0, kCapturedIteration + 1, 0}), std::invalid_argument);
  EXPECT_THROW(pack_replay_tag({0, 0, kIterationStartStep + 1}), std::invalid_argument);
}

TEST(TracedOpIntervals, DirectStepsCountFromTheStartMarkersEnd) {
  // Ops 0 and 1 are one grouped step (0), op 2 step 1 (a kernel and a copy, 2 us apart).
  const std::vector<std::size_t> step_of_op = {0, 0, 1};
  const std::vector<TracedActivity> trace = {
      direct(0, 0, kIterationStartStep, 1'000, 3'000),
      direct(0, 0, 0, 10'000, 14'500),
      direct(0, 0, 1, 20'000, 25'000),
      direct(0, 0, 1, 27'000, 30'000),
      direct(1, 0, 0, 0, 99'000),          // rank 1's: not rank 0's
      {0, 0, kBaseNs, kBaseNs + 500'000},  // untagged (a gap's delay, another library's kernel)
      direct(0, 1, kIterationStartStep, 100'000, 101'000),
      direct(0, 1, 0, 102'000, 104'000),
      direct(0, 1, 1, 104'000, 109'000),
  };
  const std::vector<OpInterval> first = traced_op_intervals(trace, 0, 0, step_of_op, 2);
  ASSERT_EQ(first.size(), 3u);
  EXPECT_DOUBLE_EQ(first[0].start_us, 7.0);
  EXPECT_DOUBLE_EQ(first[0].end_us, 11.5);
  EXPECT_DOUBLE_EQ(first[1].duration_us(), 4.5);  // the group's interval, shared
  EXPECT_DOUBLE_EQ(first[2].start_us, 17.0);
  EXPECT_DOUBLE_EQ(first[2].end_us, 27.0);  // to the copy's end
  const std::vector<OpInterval> second = traced_op_intervals(trace, 0, 1, step_of_op, 2);
  EXPECT_DOUBLE_EQ(second[0].start_us, 1.0);
  EXPECT_DOUBLE_EQ(second[2].duration_us(), 5.0);
}

TEST(TracedOpIntervals, GraphNodesTakeTheirStepFromTheCaptureAndIterationFromTheLaunch) {
  const std::vector<std::size_t> step_of_op = {0, 1};
  const std::vector<TracedActivity> trace = {
      direct(2, 0, kIterationStartStep, 0, 2'000),
      graph_node(2, 0, 0, 3'000, 5'000),
      graph_node(2, 0, 1, 5'500, 9'000),
      // A node captured outside every step (a gap's delay): the launch's tag alone.
      {tag(2, 0, kGraphLaunchStep), 0, kBaseNs + 2'000, kBaseNs + 3'000},
      direct(2, 1, kIterationStartStep, 50'000, 51'000),
      graph_node(2, 1, 1, 60'000, 61'000),
      graph_node(2, 1, 0, 52'000, 53'000),
      // The same graph's nodes launched before the marker, under a tag that matches.
      graph_node(2, 1, 1, 40'000, 45'000),
  };
  const std::vector<OpInterval> first = traced_op_intervals(trace, 2, 0, step_of_op, 2);
  EXPECT_DOUBLE_EQ(first[0].start_us, 1.0);
  EXPECT_DOUBLE_EQ(first[0].end_us, 3.0);
  EXPECT_DOUBLE_EQ(first[1].start_us, 3.5);
  EXPECT_DOUBLE_EQ(first[1].end_us, 7.0);
  const std::vector<OpInterval> second = traced_op_intervals(trace, 2, 1, step_of_op, 2);
  EXPECT_DOUBLE_EQ(second[0].start_us, 1.0);
  EXPECT_DOUBLE_EQ(second[1].start_us, 9.0);
  EXPECT_DOUBLE_EQ(second[1].duration_us(), 1.0);
}

TEST(TracedOpIntervals, AStepWithoutWorkIsEmptyWhereTheEarlierStepsEnded) {
  const std::vector<std::size_t> step_of_op = {0, 1, 2};
  const std::vector<TracedActivity> trace = {
      direct(0, 0, kIterationStartStep, 0, 1'000),
      direct(0, 0, 0, 2'000, 6'000),
      direct(0, 0, 2, 8'000, 9'000),
  };
  const std::vector<OpInterval> intervals = traced_op_intervals(trace, 0, 0, step_of_op, 3);
  EXPECT_DOUBLE_EQ(intervals[1].start_us, 5.0);
  EXPECT_DOUBLE_EQ(intervals[1].duration_us(), 0.0);
  EXPECT_DOUBLE_EQ(intervals[2].start_us, 7.0);
}

TEST(TracedOpIntervals, AMissingStartMarkerNamesTheRankAndIteration) {
  const std::vector<TracedActivity> trace = {direct(1, 0, kIterationStartStep, 0, 1'000),
                                             direct(1, 0, 0, 2'000, 3'000),
                                             direct(1, 1, 0, 5'000, 6'000)};
  try {
    traced_op_intervals(trace, 1, 1, {0}, 1);
    FAIL() << "no error";
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), "the kernel trace holds no start of rank 1's timed iteration 1");
  }
}

}  // namespace
}  // namespace collbench::replay::testing
