// The check on workloads built to be sound or broken in one known way: matched collectives and
// pairs pass; an op one member never issued, disagreeing sizes, types, roots or reductions, a
// send without its receive, alltoallv counts that disagree, and cycles (opposite orders, a ring
// of blocking sends, a send to itself, a recorded wait) are refused with one line naming the
// place. The check holds one rank's window at a time.
#include <gtest/gtest.h>

#include "check/workload_check.hpp"
#include "workload_builders.hpp"
#include "workload_files.hpp"

namespace collbench::replay::testing {
namespace {

std::vector<Communicator> pair_and_world(int world) {
  std::vector<int> all;
  for (int rank = 0; rank < world; ++rank) all.push_back(rank);
  return {{0, all, {"world"}}, {1, all, {"again"}}};
}

// The check's error for `ops` on `world` ranks ("" when it passes).
std::string check_error(int world, std::vector<WorkloadOp> ops, CheckSummary* summary = nullptr) {
  TempFile file("check.jsonl");
  write_workload(file.path(), synthetic_header(world), pair_and_world(world), std::move(ops));
  const std::string error = usage_error_of([&] {
    const CheckSummary checked = check_workload(file.path());
    if (summary != nullptr) *summary = checked;
  });
  if (error.empty()) return "";
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  const std::size_t after_path = error.find(".jsonl:");
  EXPECT_NE(after_path, std::string::npos) << error;  // it names the workload's line
  return error.substr(error.find(": ", after_path) + 2);
}

TEST(Check, MatchedCollectivesAndPairsPass) {
  CheckSummary summary;
  std::vector<WorkloadOp> ops;
  for (int rank = 0; rank < 2; ++rank) {
    for (int seq = 0; seq < 3; ++seq) ops.push_back(collective_op(rank, 0, seq));
  }
  ops.push_back(p2p_op(0, 0, ReplayOp::send, 1, 0));
  ops.push_back(p2p_op(1, 0, ReplayOp::recv, 0, 0));
  EXPECT_EQ(check_error(2, ops, &summary), "");
  EXPECT_EQ(summary.ops, 8u);
  EXPECT_EQ(summary.collectives, 3u);
  EXPECT_EQ(summary.point_to_point_pairs, 1u);
  EXPECT_EQ(summary.ranks_with_ops, 2);
}

TEST(Check, AnOpOneMemberNeverIssuedIsRefused) {
  std::vector<WorkloadOp> ops = {collective_op(0, 0, 0), collective_op(0, 0, 1),
                                 collective_op(1, 0, 0), collective_op(2, 0, 0),
                                 collective_op(2, 0, 1)};
  EXPECT_EQ(check_error(3, ops),
            "all_reduce seq 1 on communicator 0 (ranks 0,1,2): rank 1 never issues it (an op not "
            "every member issued)");
}

TEST(Check, DisagreeingCollectivesAreRefused) {
  WorkloadOp smaller = collective_op(1, 0, 0, ReplayOp::all_reduce, 512);
  EXPECT_EQ(check_error(2, {collective_op(0, 0, 0), smaller}).substr(0, 71),
            "all_reduce seq 0 on communicator 0 (ranks 0,1): count 512 here, 1024 on");
  WorkloadOp half = collective_op(1, 0, 0);
  half.dtype = DataType::half;
  EXPECT_NE(check_error(2, {collective_op(0, 0, 0), half}).find("dtype half here, float on rank 0"),
            std::string::npos);
  WorkloadOp rooted = collective_op(1, 0, 0, ReplayOp::broadcast);
  rooted.root = 1;
  EXPECT_NE(check_error(2, {collective_op(0, 0, 0, ReplayOp::broadcast), rooted})
                .find("root 1 here, 0 on rank 0"),
            std::string::npos);
  WorkloadOp maximum = collective_op(1, 0, 0);
  maximum.redop = ReduceOp::max;
  EXPECT_NE(check_error(2, {collective_op(0, 0, 0), maximum}).find("redop max here, sum"),
            std::string::npos);
  EXPECT_NE(check_error(2, {collective_op(0, 0, 0), collective_op(1, 0, 0, ReplayOp::all_gather)})
                .find("op all_gather here, all_reduce on rank 0"),
            std::string::npos);
}

TEST(Check, ASendWithoutItsReceiveIsRefused) {
  EXPECT_EQ(
      check_error(2, {p2p_op(0, 0, ReplayOp::send, 1, 0), p2p_op(0, 0, ReplayOp::send, 1, 1),
                      p2p_op(1, 0, ReplayOp::recv, 0, 0)}),
      "send of 256 float to rank 1 (seq 1 on communicator 0 (ranks 0,1)) has no matching recv "
      "on rank 1");
  EXPECT_NE(
      check_error(2, {p2p_op(0, 0, ReplayOp::send, 1, 0), p2p_op(1, 0, ReplayOp::recv, 0, 0, 128)})
          .find("recv of 128 float here, its send on rank 0"),
      std::string::npos);
}

TEST(Check, AlltoallvCountsMustAgreePairwise) {
  const auto alltoallv = [](int rank, std::vector<std::uint64_t> send,
                            std::vector<std::uint64_t> recv) {
    WorkloadOp op = collective_op(rank, 0, 0, ReplayOp::alltoallv);
    op.send_counts = std::move(send);
    op.recv_counts = std::move(recv);
    return op;
  };
  EXPECT_EQ(check_error(2, {alltoallv(0, {1, 2}, {1, 3}), alltoallv(1, {3, 4}, {2, 4})}), "");
  EXPECT_NE(
      check_error(2, {alltoallv(0, {1, 2}, {1, 3}), alltoallv(1, {5, 4}, {2, 4})}).find("disagree"),
      std::string::npos);
}

TEST(Check, OppositeOrdersOnOneStreamDeadlock) {
  const std::string error = check_error(2, {collective_op(0, 0, 0), collective_op(0, 1, 0),
                                            collective_op(1, 1, 0), collective_op(1, 0, 0)});
  EXPECT_EQ(error.substr(0, 10), "deadlock: ") << error;
  EXPECT_NE(error.find("rank 0 issues all_reduce seq 0 on communicator 0 (ranks 0,1) ("),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("rank 1 issues all_reduce seq 0 on communicator 1 (ranks 0,1) ("),
            std::string::npos)
      << error;
  // On two streams of rank 1 neither waits for the other.
  EXPECT_EQ(check_error(
                2, {collective_op(0, 0, 0), collective_op(0, 1, 0),
                    collective_op(1, 1, 0, ReplayOp::all_reduce, 1024, 1), collective_op(1, 0, 0)}),
            "");
}

TEST(Check, ARingOfSendsDeadlocksUnlessGrouped) {
  std::vector<WorkloadOp> blocking, grouped;
  for (int rank = 0; rank < 3; ++rank) {
    const WorkloadOp send = p2p_op(rank, 0, ReplayOp::send, (rank + 1) % 3, 0);
    const WorkloadOp recv = p2p_op(rank, 0, ReplayOp::recv, (rank + 2) % 3, 0);
    blocking.insert(blocking.end(), {send, recv});
    grouped.insert(grouped.end(), {in_group(send, 0), in_group(recv, 0)});
  }
  EXPECT_NE(check_error(3, blocking).find("deadlock: rank"), std::string::npos);
  EXPECT_EQ(check_error(3, grouped), "");
}

TEST(Check, ASendToItselfOutsideAGroupDeadlocks) {
  EXPECT_NE(check_error(1, {p2p_op(0, 0, ReplayOp::send, 0, 0), p2p_op(0, 0, ReplayOp::recv, 0, 0)})
                .find("rank 0 sends to itself"),
            std::string::npos);
  EXPECT_EQ(check_error(1, {in_group(p2p_op(0, 0, ReplayOp::send, 0, 0), 0),
                            in_group(p2p_op(0, 0, ReplayOp::recv, 0, 0), 0)}),
            "");
}

TEST(Check, ARecordedWaitBetweenStreamsCanCloseACycle) {
  WorkloadOp waits = collective_op(1, 0, 0, ReplayOp::all_reduce, 1024, 1);
  const std::vector<WorkloadOp> free = {collective_op(0, 0, 0), collective_op(0, 1, 0),
                                        collective_op(1, 1, 0), waits};
  EXPECT_EQ(check_error(2, free), "");
  std::vector<WorkloadOp> waiting = free;
  waiting[3].after = {0};  // rank 1's stream 1 waits for its op 0 (communicator 1) first
  EXPECT_NE(check_error(2, waiting).find("deadlock"), std::string::npos);
}

TEST(Check, HoldsOneRanksWindowAtATime) {
  CheckSummary summary;
  std::vector<WorkloadOp> ops;
  constexpr int kRanks = 4;
  constexpr int kOpsPerRank = 1000;
  for (int rank = 0; rank < kRanks; ++rank) {
    for (int seq = 0; seq < kOpsPerRank; ++seq)
      ops.push_back(collective_op(rank, 0, seq, ReplayOp::all_reduce, 8));
  }
  EXPECT_EQ(check_error(kRanks, ops, &summary), "");
  EXPECT_EQ(summary.ops, static_cast<std::uint64_t>(kRanks * kOpsPerRank));
  EXPECT_EQ(summary.most_ops_held, static_cast<std::size_t>(kOpsPerRank));  // one rank's, not all
}

}  // namespace
}  // namespace collbench::replay::testing
