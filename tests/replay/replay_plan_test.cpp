// What the GPU replay follows, checked on the CPU: a rank's ops as issue steps (groups, waits, the
// placement of each op's data in its stream's buffers), the recorded gaps kept as delays, the
// values --check fills and expects, alltoallv's traffic and the registry's view of an op.
#include <gtest/gtest.h>

#include "plan/alltoallv_traffic.hpp"
#include "plan/check_values.hpp"
#include "plan/handbuilt_selection.hpp"
#include "plan/issue_plan.hpp"
#include "plan/recorded_times.hpp"
#include "plan/registry_op.hpp"
#include "workload_builders.hpp"

namespace collbench::replay::testing {
namespace {

CommunicatorTable world_of(int ranks) {
  std::vector<int> all;
  for (int rank = 0; rank < ranks; ++rank) all.push_back(rank);
  return CommunicatorTable({{0, all, {"world"}}});
}

WorkloadOp after(WorkloadOp op, std::vector<std::int64_t> waited) {
  op.after = std::move(waited);
  return op;
}

TEST(IssuePlan, AGroupIsOneStepAcrossItsStreams) {
  const std::vector<WorkloadOp> ops = {
      collective_op(0, 0, 0),
      in_group(p2p_op(0, 0, ReplayOp::send, 1, 0, 256, 1), 4),
      in_group(p2p_op(0, 0, ReplayOp::recv, 1, 0, 256, 0), 4),
      in_group(p2p_op(0, 0, ReplayOp::send, 1, 1, 256, 1), 5),
      collective_op(0, 0, 1),
  };
  const RankIssuePlan plan = plan_rank_issue(ops, world_of(2));
  ASSERT_EQ(plan.steps.size(), 4u);
  EXPECT_FALSE(plan.steps[0].grouped);
  EXPECT_TRUE(plan.steps[1].grouped);
  EXPECT_EQ(plan.steps[1].ops, (std::vector<std::size_t>{1, 2}));
  EXPECT_EQ(plan.steps[1].streams, (std::vector<int>{0, 1}));
  // Group 5 is a step of its own, though it follows group 4 directly.
  EXPECT_EQ(plan.steps[2].ops, (std::vector<std::size_t>{3}));
  EXPECT_EQ(plan.ops[4].step, 3u);
  EXPECT_EQ(plan.streams.size(), 2u);
}

TEST(IssuePlan, RecordedWaitsAcrossStreamsOnlyAndOnce) {
  const std::vector<WorkloadOp> ops = {
      collective_op(0, 0, 0, ReplayOp::all_reduce, 64, 0),
      collective_op(0, 0, 1, ReplayOp::all_reduce, 64, 1),
      // Waits on stream 1's op (kept) and on its own stream's earlier op (stream order has it).
      after(collective_op(0, 0, 2, ReplayOp::all_reduce, 64, 0), {1, 0}),
      // A group: one op waits on the other of its group (the group launches both together), one
      // on op 1, named twice by two of its ops.
      in_group(after(p2p_op(0, 0, ReplayOp::send, 1, 0, 64, 2), {1}), 0),
      in_group(after(p2p_op(0, 0, ReplayOp::recv, 1, 0, 64, 2), {3, 1}), 0),
  };
  const RankIssuePlan plan = plan_rank_issue(ops, world_of(2));
  ASSERT_EQ(plan.steps.size(), 4u);
  EXPECT_TRUE(plan.steps[0].waits.empty());
  EXPECT_EQ(plan.steps[2].waits, (std::vector<StreamWait>{{0, 1}}));
  EXPECT_EQ(plan.steps[3].waits, (std::vector<StreamWait>{{2, 1}}));
  // A start and an end event per stream, the waits, one launch per op.
  EXPECT_EQ(plan.steps[3].stream_operations(), 2u + 1u + 2u);
}

TEST(IssuePlan, AGroupsOpsLieSideBySideAndBuffersFitTheLargestStep) {
  const std::vector<WorkloadOp> ops = {
      collective_op(0, 0, 0, ReplayOp::all_gather, 1000, 0),    // sends 4000 B, receives 16000 B
      in_group(p2p_op(0, 0, ReplayOp::send, 1, 0, 100, 0), 0),  // 400 B
      in_group(p2p_op(0, 0, ReplayOp::send, 2, 0, 300, 0), 0),  // 1200 B, after 512
      in_group(p2p_op(0, 0, ReplayOp::recv, 3, 0, 10, 0), 0),   // 40 B
      collective_op(0, 0, 1, ReplayOp::all_reduce, 8, 1),       // another stream's
  };
  const RankIssuePlan plan = plan_rank_issue(ops, world_of(4));
  EXPECT_EQ(plan.ops[0].send_bytes, 4000u);
  EXPECT_EQ(plan.ops[0].recv_bytes, 16000u);
  EXPECT_EQ(plan.ops[1].send_offset, 0u);
  EXPECT_EQ(plan.ops[2].send_offset, 512u);
  EXPECT_EQ(plan.ops[2].send_bytes, 1200u);
  EXPECT_EQ(plan.ops[3].recv_offset, 0u);
  EXPECT_EQ(plan.ops[3].recv_bytes, 40u);
  EXPECT_EQ(plan.ops[3].send_bytes, 0u);
  // Stream 0: the all_gather's 4000 B beat the group's 512 + 1200 (aligned: 1792), its 16000 B
  // receive the group's 40; stream 1 holds only its all_reduce, at least one aligned block.
  EXPECT_EQ(plan.streams[0].send_bytes, 4096u);
  EXPECT_EQ(plan.streams[0].recv_bytes, 16128u);
  EXPECT_EQ(plan.streams[1].send_bytes, kBufferAlignment);
  EXPECT_EQ(plan.streams[1].recv_bytes, kBufferAlignment);
}

TEST(RecordedGaps, KeepIdleTimePerStreamAndTheStreamsOffsets) {
  const std::vector<WorkloadOp> ops = {
      timed(collective_op(0, 0, 0, ReplayOp::all_reduce, 64, 0), 100, 150),
      timed(collective_op(0, 0, 1, ReplayOp::all_reduce, 64, 1), 130, 160),  // 30 after the origin
      timed(collective_op(0, 0, 2, ReplayOp::all_reduce, 64, 0), 140, 200),  // overlaps: no gap
      timed(collective_op(0, 0, 3, ReplayOp::all_reduce, 64, 0), 200.5, 210),  // under 1 us: none
      timed(collective_op(0, 0, 4, ReplayOp::all_reduce, 64, 1), 260, 270),    // 100 after 160
  };
  const RankIssuePlan plan = plan_rank_issue(ops, world_of(2));
  const std::vector<std::vector<StepDelay>> gaps = recorded_gaps(ops, plan);
  ASSERT_EQ(gaps.size(), 5u);
  EXPECT_TRUE(gaps[0].empty());
  ASSERT_EQ(gaps[1].size(), 1u);
  EXPECT_EQ(gaps[1][0].stream, 1);
  EXPECT_DOUBLE_EQ(gaps[1][0].delay_us, 30);
  EXPECT_TRUE(gaps[2].empty());
  EXPECT_TRUE(gaps[3].empty());
  ASSERT_EQ(gaps[4].size(), 1u);
  EXPECT_DOUBLE_EQ(gaps[4][0].delay_us, 100);
}

TEST(RecordedGaps, IssueTimesAndDurationsWhenNoStartAndNothingWithoutTimes) {
  WorkloadOp first = collective_op(0, 0, 0), second = collective_op(0, 0, 1);
  WorkloadOp untimed = collective_op(0, 0, 2), last = collective_op(0, 0, 3);
  first.times.issue_us = 10;
  first.times.duration_us = 5;
  second.times.issue_us = 40;  // 25 after the first one's end
  last.times.issue_us = 500;   // after an op without times: no gap known
  const std::vector<WorkloadOp> ops = {first, second, untimed, last};
  const std::vector<std::vector<StepDelay>> gaps =
      recorded_gaps(ops, plan_rank_issue(ops, world_of(2)));
  ASSERT_EQ(gaps[1].size(), 1u);
  EXPECT_DOUBLE_EQ(gaps[1][0].delay_us, 25);
  EXPECT_TRUE(gaps[3].empty());
  const std::vector<WorkloadOp> none = {collective_op(0, 0, 0), collective_op(0, 0, 1)};
  for (const auto& step : recorded_gaps(none, plan_rank_issue(none, world_of(2))))
    EXPECT_TRUE(step.empty());
}

TEST(RecordedTimes, DurationFromStartAndEndElseTheRecordedDuration) {
  RecordedTimes times;
  EXPECT_FALSE(recorded_duration_us(times).has_value());
  times.duration_us = 7;
  EXPECT_DOUBLE_EQ(*recorded_duration_us(times), 7);
  times.start_us = 10;
  times.end_us = 32;
  EXPECT_DOUBLE_EQ(*recorded_duration_us(times), 22);
}

TEST(CheckValues, MembersShareASeedThatDiffersFromOpToOp) {
  const WorkloadOp on_rank0 = collective_op(0, 0, 3), on_rank1 = collective_op(1, 0, 3);
  EXPECT_EQ(op_seed(on_rank0, 0), op_seed(on_rank1, 1));
  EXPECT_NE(op_seed(on_rank0, 0), op_seed(collective_op(0, 0, 4), 0));
  EXPECT_NE(op_seed(on_rank0, 0), op_seed(collective_op(0, 1, 3), 0));
  // A send and its recv share theirs; the opposite direction's differs.
  const WorkloadOp send = p2p_op(0, 0, ReplayOp::send, 1, 2);
  const WorkloadOp recv = p2p_op(1, 0, ReplayOp::recv, 0, 2);
  const WorkloadOp back = p2p_op(1, 0, ReplayOp::send, 0, 2);
  EXPECT_EQ(op_seed(send, 0), op_seed(recv, 1));
  EXPECT_NE(op_seed(send, 0), op_seed(back, 1));
}

TEST(CheckValues, ARecvHoldsItsSendersInput) {
  const WorkloadOp recv = p2p_op(1, 0, ReplayOp::recv, 3, 0);
  const kernels::PatternParams pattern = op_pattern(recv, 1, 4);
  const kernels::OutputRule rule = op_output_rule(recv);
  EXPECT_EQ(pattern.root, 3);
  EXPECT_EQ(pattern.reduction, kernels::Reduction::none);
  for (std::uint64_t j : {0u, 1u, 255u}) {
    EXPECT_EQ(kernels::expected_value(pattern, rule, 1, j), kernels::input_value(pattern, 3, j));
  }
  EXPECT_TRUE(op_output_checked(recv, 1));
  EXPECT_FALSE(op_output_checked(p2p_op(3, 0, ReplayOp::send, 1, 0), 3));
}

TEST(CheckValues, RootOnlyOutputsAreCheckedOnTheRoot) {
  WorkloadOp reduce = collective_op(0, 0, 0, ReplayOp::reduce);
  reduce.root = 2;
  EXPECT_TRUE(op_output_checked(reduce, 2));
  EXPECT_FALSE(op_output_checked(reduce, 0));
  WorkloadOp broadcast = collective_op(0, 0, 0, ReplayOp::broadcast);
  broadcast.root = 2;
  EXPECT_TRUE(op_output_checked(broadcast, 0));  // every rank receives a broadcast
  const kernels::PatternParams pattern = op_pattern(reduce, 0, 4);
  EXPECT_EQ(pattern.root, 2);
  EXPECT_EQ(pattern.reduction, kernels::Reduction::sum);
  EXPECT_EQ(pattern.block, 1024u);
}

TEST(RegistryOp, CountsAndBusBytesFollowTheRegistry) {
  const WorkloadOp gather = collective_op(0, 0, 0, ReplayOp::all_gather, 1000);
  const ElementCounts counts = op_element_counts(gather, 4, 0);
  EXPECT_EQ(counts.send, 1000u);
  EXPECT_EQ(counts.recv, 4000u);
  EXPECT_EQ(counts.param, 1000u);
  // all_gather: 4000 elements x 4 B, times (n-1)/n.
  EXPECT_DOUBLE_EQ(op_bus_bytes(gather, 4, 0), 16000.0 * 3 / 4);
  EXPECT_DOUBLE_EQ(op_bus_bytes(collective_op(0, 0, 0, ReplayOp::all_reduce, 1000), 4, 0),
                   4000.0 * 2 * 3 / 4);
  // A send: its bytes, no factor.
  EXPECT_EQ(registry_entry(ReplayOp::send).name, "sendrecv");
  EXPECT_DOUBLE_EQ(op_bus_bytes(p2p_op(0, 0, ReplayOp::send, 1, 0, 300), 4, 0), 1200.0);
}

TEST(AlltoallvTraffic, EveryMembersRowMakesTheMatrix) {
  WorkloadOps workload;
  workload.header = synthetic_header(3);
  workload.communicators = world_of(3);
  const std::vector<std::vector<std::uint64_t>> rows = {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}};
  for (int rank = 0; rank < 3; ++rank) {
    WorkloadOp op = collective_op(rank, 0, 5, ReplayOp::alltoallv, 0);
    op.send_counts = rows[static_cast<std::size_t>(rank)];
    for (int from = 0; from < 3; ++from)
      op.recv_counts.push_back(
          rows[static_cast<std::size_t>(from)][static_cast<std::size_t>(rank)]);
    workload.by_rank.push_back({op});
  }
  const TrafficByInstance traffic = alltoallv_traffic(workload);
  ASSERT_EQ(traffic.size(), 1u);
  const PeerTraffic& matrix = *traffic.at({0, 5});
  EXPECT_EQ(matrix.count(1, 2), 6u);
  EXPECT_EQ(matrix.count(2, 0), 7u);
  // Rank 2 receives 3 from 0, 6 from 1, 9 from 2; rank 1's segment for it starts after its 4 + 5.
  EXPECT_EQ(matrix.recv_offset(1, 2), 3u);
  EXPECT_EQ(matrix.send_offset(1, 2), 9u);
  EXPECT_EQ(matrix.received_by(2), 18u);
}

// --algo takes an all_reduce only when no member groups it and its communicator has peers:
// decided over every rank's ops (rank 1 alone grouping seq 0 keeps it on NCCL for rank 0 too).
TEST(HandbuiltSelection, GroupedAndOneRankAllReducesStayOnNccl) {
  WorkloadOps workload;
  workload.communicators = CommunicatorTable({{0, {0, 1}, {"world"}}, {1, {0}, {"alone"}}});
  workload.by_rank = {
      {collective_op(0, 0, 0), collective_op(0, 0, 1), collective_op(0, 1, 0),
       collective_op(0, 0, 2, ReplayOp::all_gather)},
      {in_group(collective_op(1, 0, 0), 7), collective_op(1, 0, 1),
       collective_op(1, 0, 2, ReplayOp::all_gather)},
  };
  const HandbuiltSelection selection = select_handbuilt_all_reduces(workload);
  EXPECT_EQ(selection.taken, (std::set<OpKey>{{0, 1}}));
  EXPECT_EQ(selection.grouped, 1u);
  EXPECT_EQ(selection.single_rank, 1u);
  EXPECT_TRUE(selection.takes(workload.by_rank[0][1]));
  EXPECT_FALSE(selection.takes(workload.by_rank[0][0]));
  // A send numbered like the taken all_reduce is NCCL's.
  EXPECT_FALSE(selection.takes(p2p_op(0, 0, ReplayOp::send, 1, 1)));
}

}  // namespace
}  // namespace collbench::replay::testing
