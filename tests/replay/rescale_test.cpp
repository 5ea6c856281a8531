// Rescaling synthetic DP x TP grids of 2, 4 and 8 ranks to other rank counts: the result passes
// the check, TP groups stay whole, DP groups and the world take the new count, each new rank
// replays its recorded replica, and all_gather / reduce_scatter keep their whole buffer. Workloads
// that are no grid, or hold ops that name particular peers across replicas, are refused with why.
#include <gtest/gtest.h>

#include <fstream>

#include "check/workload_check.hpp"
#include "rescale/parallel_grid.hpp"
#include "rescale/rescale_workload.hpp"
#include "workload_builders.hpp"
#include "workload_files.hpp"

namespace collbench::replay::testing {
namespace {

struct GridCase {
  int data_parallel;
  int tensor_parallel;
  int new_world;
};

LoadedWorkload rescaled(const GridWorkload& grid, int new_world,
                        RescaleOutcome* outcome = nullptr) {
  TempFile in("grid.jsonl"), out("grid_rescaled.jsonl");
  write_workload(in.path(), grid.header, grid.communicators, grid.ops);
  check_workload(in.path());
  {
    std::ofstream stream(out.path());
    WorkloadWriter writer(stream, out.path());
    const RescaleOutcome result = rescale_workload(in.path(), new_world, writer);
    writer.finish();
    if (outcome != nullptr) *outcome = result;
  }
  check_workload(out.path());
  return load_workload(out.path());
}

class RescaleGrid : public ::testing::TestWithParam<GridCase> {};

TEST_P(RescaleGrid, KeepsTensorParallelGroupsAndScalesTheReplicas) {
  const GridCase param = GetParam();
  const GridWorkload grid = grid_workload(param.data_parallel, param.tensor_parallel);
  RescaleOutcome outcome;
  const LoadedWorkload result = rescaled(grid, param.new_world, &outcome);
  const int t_size = param.tensor_parallel;
  const int new_dp = param.new_world / t_size;
  EXPECT_EQ(outcome.grid.tensor_parallel, t_size);
  EXPECT_EQ(outcome.grid.data_parallel, param.data_parallel);
  EXPECT_EQ(result.header.world_size, param.new_world);
  ASSERT_TRUE(result.header.rescaled.has_value());
  EXPECT_EQ(result.header.rescaled->data_parallel_to, new_dp);
  for (int rank = 0; rank < param.new_world; ++rank) {
    SCOPED_TRACE("rank " + std::to_string(rank));
    const std::vector<WorkloadOp>& ops = result.ops.at(rank);
    ASSERT_EQ(ops.size(), t_size > 1 ? 8u : 6u);
    for (const WorkloadOp& op : ops) {
      const std::vector<int>& ranks = result.communicators.at(op.comm).ranks;
      if ((op.op == ReplayOp::all_reduce && op.count < (1u << 20)) || op.peer) {  // on its TP group
        std::vector<int> block;
        for (int t = 0; t < t_size; ++t) block.push_back(rank / t_size * t_size + t);
        EXPECT_EQ(ranks, block);
      } else if (op.op == ReplayOp::broadcast) {
        EXPECT_EQ(static_cast<int>(ranks.size()), param.new_world);
      } else {  // on its DP group: the whole gathered / scattered buffer is the same
        EXPECT_EQ(static_cast<int>(ranks.size()), new_dp);
        const std::uint64_t whole = op.op == ReplayOp::all_gather ? 1000u * param.data_parallel
                                    : op.op == ReplayOp::reduce_scatter ? 250u * param.data_parallel
                                                                        : 0;
        if (whole > 0) {
          EXPECT_EQ(op.count, (whole + new_dp - 1) / new_dp) << name_of(op.op);
        }
      }
      EXPECT_FALSE(op.times.start_us.has_value());
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Grids, RescaleGrid,
                         ::testing::Values(GridCase{2, 1, 4}, GridCase{2, 1, 8}, GridCase{4, 1, 2},
                                           GridCase{2, 2, 8}, GridCase{2, 2, 2}, GridCase{4, 2, 4},
                                           GridCase{4, 2, 6}, GridCase{2, 4, 16}, GridCase{8, 1, 3},
                                           GridCase{2, 4, 4}));

TEST(Rescale, RoundsUpAShareThatDoesNotDivide) {
  const LoadedWorkload result = rescaled(grid_workload(2, 2), 6);  // 2000 gathered over 3
  for (const WorkloadOp& op : result.ops.at(0)) {
    if (op.op == ReplayOp::all_gather) {
      EXPECT_EQ(op.count, 667u);
    }
  }
  bool noted = false;
  for (const std::string& note : result.header.assumptions)
    noted = noted || note.find("rounded up") != std::string::npos;
  EXPECT_TRUE(noted);
}

std::string rescale_error(const GridWorkload& grid, int new_world) {
  TempFile in("refused.jsonl"), out("refused_out.jsonl");
  write_workload(in.path(), grid.header, grid.communicators, grid.ops);
  std::ofstream stream(out.path());
  WorkloadWriter writer(stream, out.path());
  return usage_error_of([&] { rescale_workload(in.path(), new_world, writer); });
}

TEST(Rescale, RefusesWhatIsNoGrid) {
  GridWorkload overlapping;
  overlapping.header = synthetic_header(4);
  overlapping.communicators = {{0, {0, 1}, {}}, {1, {1, 2}, {}}, {2, {2, 3}, {}}};
  EXPECT_EQ(rescale_error(overlapping, 8),
            "not a data-parallel x tensor-parallel grid: communicator 1 (ranks 1,2) is neither a "
            "block of consecutive ranks (tensor-parallel) nor an even stride (data-parallel)");
  GridWorkload mixed;
  mixed.header = synthetic_header(8);
  mixed.communicators = {{0, {0, 1}, {}}, {1, {0, 1, 2, 3}, {}}};
  EXPECT_NE(rescale_error(mixed, 16).find("implies 4 ranks per tensor-parallel group"),
            std::string::npos);
  EXPECT_EQ(rescale_error(grid_workload(2, 2), 3),
            "--ranks 3: not a multiple of the 2 ranks of a tensor-parallel group");
}

TEST(Rescale, RefusesOpsThatNamePeersAcrossReplicas) {
  GridWorkload grid = grid_workload(2, 2);
  const int dp_comm = 3;  // ranks 0, 2
  grid.ops.push_back(p2p_op(0, dp_comm, ReplayOp::send, 1, 0));
  grid.ops.push_back(p2p_op(2, dp_comm, ReplayOp::recv, 0, 0));
  const std::string error = rescale_error(grid, 8);
  EXPECT_NE(error.find("cannot rescale: send names particular peers"), std::string::npos) << error;
  EXPECT_EQ(rescale_error(grid, 4), "");  // the same rank count: nothing to rescale
  GridWorkload rooted = grid_workload(4, 1);
  for (WorkloadOp& op : rooted.ops) {
    if (op.op == ReplayOp::broadcast) op.root = 3;
  }
  EXPECT_NE(rescale_error(rooted, 2).find(
                "broadcast from root 3, which a communicator of 2 ranks does not have"),
            std::string::npos);
}

TEST(Rescale, FindsTheGridOfTheWorldAlone) {
  const GridWorkload grid = grid_workload(4, 1);
  const ParallelGrid found = find_parallel_grid(CommunicatorTable(grid.communicators), 4);
  EXPECT_EQ(found.tensor_parallel, 1);
  EXPECT_EQ(found.data_parallel, 4);
  EXPECT_EQ(found.places[0].role, GridRole::world);
}

}  // namespace
}  // namespace collbench::replay::testing
