// Arrival skew apart from the time without waiting, on fabricated per-rank intervals: a rank that
// starts late shows as skew while the others' longer times (their wait for it) do not enter the
// call's own time; a send/recv pair is one call; a row's figure is the mean over its calls; the
// recorded start/end give the same figures, and none unless every member has them.
#include "plan/arrival_skew.hpp"

#include <gtest/gtest.h>

#include "plan/replay_figures.hpp"
#include "workload_builders.hpp"

namespace collbench::replay::testing {
namespace {

TEST(ArrivalSkew, TheLateMemberIsTheSkewAndItsDurationTheCallsTime) {
  // Ranks 0 and 1 start at 5 and wait for rank 2, which starts 50 us later; all end at 85.
  const CallArrival arrival = call_arrival({{5, 85}, {5, 85.5}, {55, 85}});
  EXPECT_DOUBLE_EQ(arrival.skew_us, 50);
  EXPECT_DOUBLE_EQ(arrival.op_us, 30);
}

TEST(ArrivalSkew, MembersArrivingTogetherHaveNoSkew) {
  const CallArrival arrival = call_arrival({{12, 40}, {12, 42}});
  EXPECT_DOUBLE_EQ(arrival.skew_us, 0);
  EXPECT_DOUBLE_EQ(arrival.op_us, 28);
  EXPECT_THROW(call_arrival({}), std::logic_error);
}

// Three ranks, one all_reduce then a send from rank 0 to rank 2; rank 2 starts 50 us late in
// every iteration, the others' all_reduce takes 50 us longer, waiting for it.
WorkloadOps three_rank_workload() {
  WorkloadOps workload;
  workload.header = synthetic_header(3);
  workload.communicators = CommunicatorTable({{0, {0, 1, 2}, {"world"}}});
  workload.by_rank = {
      {timed(collective_op(0, 0, 0), 100, 180), p2p_op(0, 0, ReplayOp::send, 2, 0)},
      {timed(collective_op(1, 0, 0), 100, 180)},
      {timed(collective_op(2, 0, 0), 140, 180), p2p_op(2, 0, ReplayOp::recv, 0, 0)},
  };
  return workload;
}

std::vector<RankResults> late_rank_two(int iterations) {
  std::vector<RankResults> results(3);
  for (int i = 0; i < iterations; ++i) {
    const double jitter = 0.1 * (i % 3);
    results[0].iterations.push_back({{2, 82 + jitter}, {90, 110}});
    results[1].iterations.push_back({{2, 82 + jitter}});
    results[2].iterations.push_back({{52, 82 + jitter}, {94, 110}});
    for (RankResults& rank : results) {
      rank.window_us.push_back(120);
      rank.plain_window_us.push_back(120);
    }
  }
  results[0].mismatches = {0, 0};
  results[1].mismatches = {0};
  results[2].mismatches = {0, 0};
  return results;
}

TEST(ArrivalSkew, ARowShowsTheLateRankAsSkewNotAsOpTime) {
  const ReplayFigures figures = replay_figures(three_rank_workload(), late_rank_two(9));
  ASSERT_EQ(figures.kinds.size(), 2u);
  const OpKindFigures& all_reduce = figures.kinds[0];
  EXPECT_EQ(all_reduce.op, "all_reduce");
  EXPECT_NEAR(all_reduce.arrival.skew_per_call.p50_us, 50, 1e-9);
  EXPECT_NEAR(all_reduce.arrival.op_per_call.p50_us, 30.1, 1e-9);
  EXPECT_EQ(all_reduce.arrival.op_per_call.samples, 9);
  // The row's time is still the slowest rank's, waiting included.
  EXPECT_NEAR(all_reduce.time_per_call.p50_us, 80.1, 1e-9);
  // Recorded: rank 2 began 40 us after the others, and its 40 us are the call's own.
  EXPECT_DOUBLE_EQ(*all_reduce.arrival.recorded_skew_us, 40);
  EXPECT_DOUBLE_EQ(*all_reduce.arrival.recorded_op_us, 40);
  const OpKindFigures& pair = figures.kinds[1];
  EXPECT_EQ(pair.op, "send/recv");
  EXPECT_DOUBLE_EQ(pair.arrival.skew_per_call.p50_us, 4);
  EXPECT_DOUBLE_EQ(pair.arrival.op_per_call.p50_us, 16);
  EXPECT_FALSE(pair.arrival.recorded_skew_us.has_value());  // no recorded times
}

TEST(ArrivalSkew, ARowsFigureIsTheMeanOverItsCalls) {
  WorkloadOps workload;
  workload.header = synthetic_header(2);
  workload.communicators = CommunicatorTable({{0, {0, 1}, {"world"}}});
  workload.by_rank = {{collective_op(0, 0, 0), collective_op(0, 0, 1)},
                      {collective_op(1, 0, 0), collective_op(1, 0, 1)}};
  // The first call: rank 1 is 10 us late (its own time 20); the second: no skew, 30 us.
  std::vector<RankResults> results(2);
  results[0].iterations = {{{0, 30}, {30, 60}}};
  results[1].iterations = {{{10, 30}, {30, 60}}};
  for (RankResults& rank : results) {
    rank.window_us = {60};
    rank.plain_window_us = {60};
    rank.mismatches = {0, 0};
  }
  const ArrivalFigures arrival = replay_figures(workload, results).kinds.at(0).arrival;
  EXPECT_DOUBLE_EQ(arrival.skew_per_call.p50_us, 5);
  EXPECT_DOUBLE_EQ(arrival.op_per_call.p50_us, 25);
  EXPECT_FALSE(arrival.recorded_skew_us.has_value());
}

TEST(ArrivalSkew, NoRecordedFigureUnlessEveryMemberHasItsTimes) {
  WorkloadOps workload = three_rank_workload();
  workload.by_rank[1][0].times.start_us.reset();
  const ReplayFigures figures = replay_figures(workload, late_rank_two(3));
  EXPECT_FALSE(figures.kinds.at(0).arrival.recorded_skew_us.has_value());
  EXPECT_FALSE(figures.kinds.at(0).arrival.recorded_op_us.has_value());
}

}  // namespace
}  // namespace collbench::replay::testing
