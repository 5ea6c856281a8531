// The replay's figures from known measurements: each op's median and busbw; per communicator and
// op the calls (a send with its recv one call) timed by the slowest rank, a group's time counted
// once; per-rank sums against the time some op ran (what ran concurrently), the slowest rank's
// window, recorded times where every call has one; and a rank's results packed to travel between
// processes and back.
#include "plan/replay_figures.hpp"

#include <gtest/gtest.h>

#include "workload_builders.hpp"

namespace collbench::replay::testing {
namespace {

// Rank 0: all_reduce (stream 0), send to 1 (stream 1); rank 1: all_reduce, recv from 0 (stream 0).
WorkloadOps two_rank_workload(bool recv_recorded) {
  WorkloadOps workload;
  workload.header = synthetic_header(2);
  workload.communicators = CommunicatorTable({{0, {0, 1}, {"world"}}});
  WorkloadOp recv = p2p_op(1, 0, ReplayOp::recv, 0, 0);
  if (recv_recorded) recv = timed(recv, 10, 16);
  workload.by_rank = {
      {timed(collective_op(0, 0, 0), 0, 8),
       timed(p2p_op(0, 0, ReplayOp::send, 1, 0, 256, 1), 10, 20)},
      {timed(collective_op(1, 0, 0), 0, 9), recv},
  };
  return workload;
}

// Three iterations i = 0, 1, 2 with times that grow with i where a median must pick the middle.
std::vector<RankResults> three_iterations() {
  std::vector<RankResults> results(2);
  for (int i = 0; i < 3; ++i) {
    results[0].iterations.push_back({{0, 10.0 + i}, {5, 25}});
    results[0].window_us.push_back(30);
    results[0].plain_window_us.push_back(25);
    results[1].iterations.push_back({{0, 12}, {12, 35.0 + i}});
    results[1].window_us.push_back(40.0 + i);
    results[1].plain_window_us.push_back(36.0 + i);
  }
  results[0].mismatches = {0, 0};
  results[1].mismatches = {0, 7};
  return results;
}

// Three iterations, each with every rank's op intervals as given and the same window; no mismatch.
std::vector<RankResults> same_three_iterations(const std::vector<std::vector<OpInterval>>& per_rank,
                                               double window_us) {
  std::vector<RankResults> results(per_rank.size());
  for (std::size_t rank = 0; rank < per_rank.size(); ++rank) {
    for (int i = 0; i < 3; ++i) {
      results[rank].iterations.push_back(per_rank[rank]);
      results[rank].window_us.push_back(window_us);
      results[rank].plain_window_us.push_back(window_us);
    }
    results[rank].mismatches.assign(per_rank[rank].size(), 0);
  }
  return results;
}

double gbps(double bytes, double us) {
  return bytes / (us * 1e-6) / 1e9;
}

TEST(ReplayFigures, EachOpsMedianBusbwAndRecordedTime) {
  const ReplayFigures figures = replay_figures(two_rank_workload(true), three_iterations());
  ASSERT_EQ(figures.ops.size(), 2u);
  const OpFigures& all_reduce = figures.ops[0][0];
  EXPECT_DOUBLE_EQ(all_reduce.time.p50_us, 11);
  EXPECT_EQ(all_reduce.bytes, 4096u);
  // all_reduce of 1024 floats on 2 ranks: 4096 B x 2 (n-1)/n.
  EXPECT_DOUBLE_EQ(all_reduce.busbw_gbps, gbps(4096, 11));
  EXPECT_DOUBLE_EQ(*all_reduce.recorded_us, 8);
  EXPECT_DOUBLE_EQ(figures.ops[1][1].time.p50_us, 24);
  EXPECT_EQ(figures.ops[1][1].mismatches, 7u);
  EXPECT_EQ(figures.iterations, 3);
}

TEST(ReplayFigures, CallsAreTimedByTheSlowestRankAndPairsAreOneCall) {
  const ReplayFigures figures = replay_figures(two_rank_workload(true), three_iterations());
  ASSERT_EQ(figures.kinds.size(), 2u);
  const OpKindFigures& all_reduce = figures.kinds[0];
  EXPECT_EQ(all_reduce.op, "all_reduce");
  EXPECT_EQ(all_reduce.calls, 1u);
  EXPECT_DOUBLE_EQ(all_reduce.time_per_call.p50_us, 12);  // rank 1's 12 beats rank 0's 10..12
  EXPECT_DOUBLE_EQ(all_reduce.busbw_gbps, gbps(4096, 12));
  EXPECT_DOUBLE_EQ(*all_reduce.recorded_us_per_call, 9);
  const OpKindFigures& pairs = figures.kinds[1];
  EXPECT_EQ(pairs.op, "send/recv");
  EXPECT_EQ(pairs.registry_op, "sendrecv");
  EXPECT_FALSE(pairs.redop.has_value());
  EXPECT_EQ(pairs.calls, 1u);
  EXPECT_EQ(pairs.bytes, 1024u);
  EXPECT_DOUBLE_EQ(pairs.time_per_call.p50_us, 24);  // the recv's 23..25 beat the send's 20
  EXPECT_DOUBLE_EQ(*pairs.recorded_us_per_call, 10);
}

TEST(ReplayFigures, AGroupsCallsShareItsTimeOnce) {
  // Two sends from rank 0 to rank 1 in one group, their recvs in one group on rank 1.
  WorkloadOps workload;
  workload.header = synthetic_header(2);
  workload.communicators = CommunicatorTable({{0, {0, 1}, {"world"}}});
  workload.by_rank = {
      {in_group(timed(p2p_op(0, 0, ReplayOp::send, 1, 0), 0, 10), 0),
       in_group(timed(p2p_op(0, 0, ReplayOp::send, 1, 1), 0, 10), 0)},
      {in_group(timed(p2p_op(1, 0, ReplayOp::recv, 0, 0), 0, 12), 3),
       in_group(timed(p2p_op(1, 0, ReplayOp::recv, 0, 1), 0, 12), 3)},
  };
  // One group per rank: one pair of events for both of its ops.
  const ReplayFigures figures =
      replay_figures(workload, same_three_iterations({{{0, 10}, {0, 10}}, {{0, 12}, {0, 12}}}, 12));
  ASSERT_EQ(figures.kinds.size(), 1u);
  const OpKindFigures& pairs = figures.kinds[0];
  EXPECT_EQ(pairs.calls, 2u);
  // The slowest rank spent 12 us on both calls, not 12 on each.
  EXPECT_DOUBLE_EQ(pairs.time_per_call.p50_us, 6);
  EXPECT_DOUBLE_EQ(pairs.busbw_gbps, gbps(2 * 1024, 12));
  EXPECT_DOUBLE_EQ(*pairs.recorded_us_per_call, 6);
  // Rank 1 was busy 12 us, its ops summed 12 us: nothing ran concurrently.
  EXPECT_DOUBLE_EQ(figures.ranks[1].op_time_sum.p50_us, 12);
  EXPECT_DOUBLE_EQ(figures.ranks[1].busy.p50_us, 12);
}

// A ring of two ranks in one group each (send to the other, recv from it): each rank's launch holds
// two calls, so its time per call and its time without waiting are both half the launch's.
TEST(ReplayFigures, AGroupsTimeWithoutWaitingIsSharedLikeItsTimePerCall) {
  WorkloadOps workload;
  workload.header = synthetic_header(2);
  workload.communicators = CommunicatorTable({{0, {0, 1}, {"world"}}});
  workload.by_rank = {
      {in_group(p2p_op(0, 0, ReplayOp::send, 1, 0), 0),
       in_group(p2p_op(0, 0, ReplayOp::recv, 1, 0), 0)},
      {in_group(p2p_op(1, 0, ReplayOp::send, 0, 0), 1),
       in_group(p2p_op(1, 0, ReplayOp::recv, 0, 0), 1)},
  };
  // One launch of 20 us per rank.
  const ReplayFigures figures =
      replay_figures(workload, same_three_iterations({{{2, 22}, {2, 22}}, {{2, 22}, {2, 22}}}, 22));
  ASSERT_EQ(figures.kinds.size(), 1u);
  const OpKindFigures& pairs = figures.kinds[0];
  EXPECT_EQ(pairs.calls, 2u);
  EXPECT_DOUBLE_EQ(pairs.time_per_call.p50_us, 10);
  EXPECT_DOUBLE_EQ(pairs.arrival.op_per_call.p50_us, 10);  // not the launch's 20
  EXPECT_DOUBLE_EQ(pairs.arrival.skew_per_call.p50_us, 0);
}

// Calls of one op in two dtypes or two reductions are rows of their own, each with its calls,
// bytes, count and time; the figures keep the registry's name of each.
TEST(ReplayFigures, EachDtypeAndReductionIsARowOfItsOwn) {
  WorkloadOps workload;
  workload.header = synthetic_header(2);
  workload.communicators = CommunicatorTable({{0, {0, 1}, {"world"}}});
  for (int rank = 0; rank < 2; ++rank) {
    WorkloadOp bfloat16 = collective_op(rank, 0, 1, ReplayOp::all_reduce, 2048);
    bfloat16.dtype = DataType::bfloat16;
    WorkloadOp max = collective_op(rank, 0, 2, ReplayOp::all_reduce, 1);
    max.redop = ReduceOp::max;
    workload.by_rank.push_back({collective_op(rank, 0, 0), bfloat16, max});
  }
  std::vector<RankResults> results(2);
  for (RankResults& rank : results) {
    for (int i = 0; i < 3; ++i) rank.iterations.push_back({{0, 10}, {10, 30}, {30, 33}});
    rank.window_us.assign(3, 33);
    rank.plain_window_us.assign(3, 33);
    rank.mismatches = {0, 0, 0};
  }
  const ReplayFigures figures = replay_figures(workload, results);
  ASSERT_EQ(figures.kinds.size(), 3u);
  // By dtype, then reduction: float sum, float max, bfloat16 sum.
  const OpKindFigures& sum = figures.kinds[0];
  EXPECT_EQ(sum.dtype, DataType::float32);
  EXPECT_EQ(sum.redop, ReduceOp::sum);
  EXPECT_EQ(sum.bytes, 4096u);
  EXPECT_EQ(sum.count, 1024u);
  EXPECT_DOUBLE_EQ(sum.time_per_call.p50_us, 10);
  const OpKindFigures& max = figures.kinds[1];
  EXPECT_EQ(max.redop, ReduceOp::max);
  EXPECT_EQ(max.bytes, 4u);
  EXPECT_DOUBLE_EQ(max.time_per_call.p50_us, 3);
  const OpKindFigures& bfloat16 = figures.kinds[2];
  EXPECT_EQ(bfloat16.dtype, DataType::bfloat16);
  EXPECT_EQ(bfloat16.bytes, 4096u);
  EXPECT_EQ(bfloat16.count, 2048u);
  EXPECT_DOUBLE_EQ(bfloat16.time_per_call.p50_us, 20);
  EXPECT_DOUBLE_EQ(bfloat16.algbw_gbps, gbps(4096, 20));
  for (const OpKindFigures& kind : figures.kinds) {
    EXPECT_EQ(kind.op, "all_reduce");
    EXPECT_EQ(kind.registry_op, "all_reduce");
    EXPECT_EQ(kind.calls, 1u);
  }
}

// Two pairs on the world, 0 -> 1 and 2 -> 3, each 10 us (recorded 8): no rank takes part in
// both, so each call took 10 us, not the 10 us of one rank spread over both calls.
TEST(ReplayFigures, ACallIsTimedOverTheCallsOfEachRank) {
  WorkloadOps workload;
  workload.header = synthetic_header(4);
  workload.communicators = CommunicatorTable({{0, {0, 1, 2, 3}, {"world"}}});
  workload.by_rank = {{timed(p2p_op(0, 0, ReplayOp::send, 1, 0), 0, 8)},
                      {timed(p2p_op(1, 0, ReplayOp::recv, 0, 0), 0, 8)},
                      {timed(p2p_op(2, 0, ReplayOp::send, 3, 0), 0, 8)},
                      {timed(p2p_op(3, 0, ReplayOp::recv, 2, 0), 0, 8)}};
  std::vector<RankResults> results(4);
  for (RankResults& rank : results) {
    for (int i = 0; i < 3; ++i) {
      rank.iterations.push_back({{0, 10}});
      rank.window_us.push_back(10);
      rank.plain_window_us.push_back(10);
    }
    rank.mismatches = {0};
  }
  const ReplayFigures figures = replay_figures(workload, results);
  ASSERT_EQ(figures.kinds.size(), 1u);
  const OpKindFigures& pairs = figures.kinds[0];
  EXPECT_EQ(pairs.calls, 2u);
  EXPECT_DOUBLE_EQ(pairs.time_per_call.p50_us, 10);
  EXPECT_DOUBLE_EQ(pairs.busbw_gbps, gbps(1024, 10));
  EXPECT_DOUBLE_EQ(*pairs.recorded_us_per_call, 8);
}

TEST(ReplayFigures, NoRecordedTimeUnlessEveryCallHasOne) {
  const ReplayFigures figures = replay_figures(two_rank_workload(false), three_iterations());
  EXPECT_TRUE(figures.kinds[0].recorded_us_per_call.has_value());
  EXPECT_FALSE(figures.kinds[1].recorded_us_per_call.has_value());
}

TEST(ReplayFigures, WindowsSumsAndTheTimeSomeOpRan) {
  const ReplayFigures figures = replay_figures(two_rank_workload(true), three_iterations());
  const RankWindowFigures& rank0 = figures.ranks[0];
  // The window from the plain iterations; the ops' sums from those with their events.
  EXPECT_DOUBLE_EQ(rank0.window.p50_us, 25);
  EXPECT_DOUBLE_EQ(rank0.window_timing_ops.p50_us, 30);
  EXPECT_DOUBLE_EQ(rank0.op_time_sum.p50_us, 31);  // 11 + 20
  EXPECT_DOUBLE_EQ(rank0.busy.p50_us, 25);         // [0, 11] and [5, 25] overlap: 6 concurrent
  EXPECT_DOUBLE_EQ(*rank0.recorded_window_us, 20);
  const RankWindowFigures& rank1 = figures.ranks[1];
  EXPECT_DOUBLE_EQ(rank1.op_time_sum.p50_us, 36);
  EXPECT_DOUBLE_EQ(rank1.busy.p50_us, 36);      // back to back: nothing concurrent
  EXPECT_DOUBLE_EQ(figures.window.p50_us, 37);  // rank 1's, the slowest each iteration
  EXPECT_DOUBLE_EQ(figures.window_timing_ops.p50_us, 41);
}

TEST(CoveredTime, IsTheUnionOfTheIntervals) {
  EXPECT_DOUBLE_EQ(covered_us({}), 0);
  EXPECT_DOUBLE_EQ(covered_us({{0, 10}, {2, 3}}), 10);
  EXPECT_DOUBLE_EQ(covered_us({{0, 1}, {5, 7}}), 3);
  EXPECT_DOUBLE_EQ(covered_us({{4, 9}, {0, 5}}), 9);
  EXPECT_DOUBLE_EQ(covered_us({{0, 4}, {1, 2}, {3, 6}, {8, 9}}), 7);
}

TEST(RankResults, PackedForTheLongestRankAndBack) {
  RankResults results;
  results.iterations = {{{1, 2}, {3, 5}}, {{6, 7}, {8, 11}}};
  results.window_us = {20, 21};
  results.plain_window_us = {18, 19};
  results.mismatches = {0, 9};
  const std::vector<double> packed = pack_results(results, 3, 2);
  ASSERT_EQ(packed.size(), packed_results_size(3, 2));
  const RankResults back = unpack_results(packed, 2, 3, 2);
  ASSERT_EQ(back.iterations.size(), 2u);
  EXPECT_DOUBLE_EQ(back.iterations[1][1].start_us, 8);
  EXPECT_DOUBLE_EQ(back.iterations[1][1].end_us, 11);
  EXPECT_DOUBLE_EQ(back.iterations[0][0].duration_us(), 1);
  EXPECT_EQ(back.window_us, (std::vector<double>{20, 21}));
  EXPECT_EQ(back.plain_window_us, (std::vector<double>{18, 19}));
  EXPECT_EQ(back.mismatches, (std::vector<std::uint64_t>{0, 9}));
  EXPECT_THROW(pack_results(results, 1, 2), std::logic_error);
  EXPECT_THROW(unpack_results(packed, 2, 3, 3), std::logic_error);
}

}  // namespace
}  // namespace collbench::replay::testing
