// run's command line and its launch rule, without a GPU: the replay's options and the common flags
// land where the session reads them, other subcommands refuse them, and a launch of another rank
// count than the workload's is refused naming both numbers.
#include <gtest/gtest.h>

#include "algorithms/algorithm_registry.hpp"
#include "cli/replay_program.hpp"
#include "workload_builders.hpp"
#include "workload_files.hpp"

namespace collbench::replay::testing {
namespace {

TEST(ReplayRunOptions, TheReplaysOptionsAndTheCommonFlagsApply) {
  const ReplayOptions options = parse_replay_options(
      {"collbench_replay", "run", "job.jsonl", "-w", "2", "-n", "7", "--check", "--gaps",
       "--timeout", "9", "--csv", "ops.csv", "--json", "run.json", "--launcher", "mpi"});
  EXPECT_EQ(options.command, ReplayCommand::run);
  EXPECT_EQ(options.replay.warmup, 2);
  EXPECT_EQ(options.replay.iters, 7);
  EXPECT_TRUE(options.replay.check);
  EXPECT_TRUE(options.replay.gaps);
  EXPECT_DOUBLE_EQ(options.common.timeout_s, 9);
  EXPECT_EQ(options.common.csv_path, "ops.csv");
  EXPECT_EQ(options.common.launcher, "mpi");
  EXPECT_EQ(options.json_path, "run.json");
}

TEST(ReplayRunOptions, DefaultsAreFiveWarmUpTwentyTimedNoCheckNoGaps) {
  const ReplayOptions options = parse_replay_options({"collbench_replay", "run", "job.jsonl"});
  EXPECT_EQ(options.replay.warmup, 5);
  EXPECT_EQ(options.replay.iters, 20);
  EXPECT_FALSE(options.replay.check);
  EXPECT_FALSE(options.replay.gaps);
  EXPECT_DOUBLE_EQ(options.common.timeout_s, 300);
  EXPECT_EQ(options.common.launcher, "auto");
}

TEST(ReplayRunOptions, TheSweptSettingsAreCollbenchsAndExpandInItsOrder) {
  const ReplayOptions options = parse_replay_options(
      {"collbench_replay", "run", "job.jsonl", "--nccl-algo", "ring,default", "--nccl-proto",
       "ll128,Simple", "--nccl-max-ctas", "16", "--register", "local,none,local"});
  EXPECT_EQ(options.axes.nccl_algos, (std::vector<std::string>{"Ring", ""}));
  EXPECT_EQ(options.axes.nccl_protos, (std::vector<std::string>{"LL128", "Simple"}));
  EXPECT_EQ(options.axes.nccl_max_ctas, std::vector<int>{16});
  EXPECT_EQ(options.axes.registrations,
            (std::vector<BufferRegistration>{BufferRegistration::local, BufferRegistration::none}));
  const std::vector<ReplayCombination> combinations = replay_combinations(options.axes);
  ASSERT_EQ(combinations.size(), 8u);
  EXPECT_EQ(combinations.front().config(),
            "nccl_algo=Ring;nccl_proto=LL128;nccl_max_ctas=16;register=local");
  EXPECT_EQ(combinations.back().config(), "nccl_proto=Simple;nccl_max_ctas=16");
  const ReplayOptions defaults = parse_replay_options({"collbench_replay", "run", "job.jsonl"});
  EXPECT_EQ(replay_combinations(defaults.axes).size(), 1u);
}

TEST(ReplayRunOptions, OtherSubcommandsRefuseThem) {
  EXPECT_EQ(usage_error_of([] {
              parse_replay_options({"collbench_replay", "summary", "job.jsonl", "--check"});
            }),
            "--check: not an option of summary");
  EXPECT_EQ(usage_error_of([] {
              parse_replay_options(
                  {"collbench_replay", "import", "a.log", "-o", "w.jsonl", "--algo", "oneshot"});
            }),
            "--algo: not an option of import");
}

// --algo resolves each entry against the algorithm registry for all_reduce, settings included,
// and crosses with the communicator axes inside the registration, NCCL's first.
TEST(ReplayRunOptions, AlgoEntriesResolveForAllReduceAndCrossTheOtherAxes) {
  const ReplayOptions options =
      parse_replay_options({"collbench_replay", "run", "job.jsonl", "--algo",
                            "nccl,ring:ctas=8,ring_sendrecv", "--nccl-proto", "LL,Simple"});
  ASSERT_EQ(options.all_reduce_algos.size(), 3u);
  for (const AlgorithmChoice& choice : options.all_reduce_algos)
    EXPECT_EQ(choice.entry->op, OpKind::all_reduce) << choice.name();
  const std::vector<ReplayCombination> combinations =
      replay_combinations(options.axes, options.all_reduce_algos);
  ASSERT_EQ(combinations.size(), 6u);
  EXPECT_EQ(combinations[0].config(), "nccl_proto=LL");
  EXPECT_FALSE(combinations[0].handbuilt_all_reduce());
  EXPECT_EQ(combinations[2].config(), "nccl_proto=LL;algo=ring;ring_ctas=8");
  EXPECT_TRUE(combinations[2].handbuilt_all_reduce());
  EXPECT_EQ(combinations[5].config(), "nccl_proto=Simple;algo=ring_sendrecv");

  const ReplayOptions every =
      parse_replay_options({"collbench_replay", "run", "job.jsonl", "--algo", "all"});
  std::vector<std::string> names;
  for (const AlgorithmChoice& choice : every.all_reduce_algos) names.emplace_back(choice.name());
  EXPECT_EQ(names, algorithm_names(OpKind::all_reduce));

  // Entries naming one choice twice make one combination: the first spelling kept.
  const ReplayOptions repeated = parse_replay_options(
      {"collbench_replay", "run", "job.jsonl", "--algo", "oneshot,nccl,oneshot,all"});
  names.clear();
  for (const AlgorithmChoice& choice : repeated.all_reduce_algos) names.emplace_back(choice.name());
  EXPECT_EQ(names.size(), algorithm_names(OpKind::all_reduce).size());
  EXPECT_EQ(names.front(), "oneshot");
  EXPECT_EQ(names[1], "nccl");
}

// --issue: direct and graph, repeats dropped, innermost in the combinations' order.
TEST(ReplayRunOptions, IssueModesSweepInnermost) {
  const ReplayOptions options =
      parse_replay_options({"collbench_replay", "run", "job.jsonl", "--issue", "graph,direct,graph",
                            "--register", "none,local"});
  EXPECT_EQ(options.graphs, (std::vector<bool>{true, false}));
  const std::vector<ReplayCombination> combinations =
      replay_combinations(options.axes, options.all_reduce_algos, options.graphs);
  ASSERT_EQ(combinations.size(), 4u);
  EXPECT_EQ(combinations[0].config(), "issue=graph");
  EXPECT_EQ(combinations[1].name(), "default");
  EXPECT_EQ(combinations[2].config(), "register=local;issue=graph");
  EXPECT_EQ(usage_error_of([] {
              parse_replay_options({"collbench_replay", "run", "job.jsonl", "--issue", "eager"});
            }),
            "--issue eager: use direct, graph, or both");
  EXPECT_EQ(usage_error_of([] {
              parse_replay_options({"collbench_replay", "check", "job.jsonl", "--issue", "graph"});
            }),
            "--issue: not an option of check");
}

TEST(ReplayRunOptions, AnAlgoThatIsNotAnAllReduceIsNamed) {
  EXPECT_NE(usage_error_of([] {
              parse_replay_options({"collbench_replay", "run", "job.jsonl", "--algo", "bogus"});
            }).find("bogus"),
            std::string::npos);
  EXPECT_NE(usage_error_of([] {
              parse_replay_options(
                  {"collbench_replay", "run", "job.jsonl", "--algo", "ring:ctas=banana"});
            }).find("banana"),
            std::string::npos);
}

WorkloadOps workload_of(int ranks) {
  WorkloadOps workload;
  workload.path = "job.jsonl";
  workload.header = synthetic_header(ranks);
  return workload;
}

TEST(ReplayRanks, ALaunchOfAnotherRankCountIsRefusedNamingBoth) {
  EXPECT_EQ(usage_error_of([] { check_replay_ranks(workload_of(4), 2, 8); }),
            "job.jsonl: the workload has 4 ranks, the launch 2 processes: launch 4 processes, or "
            "rescale it first (collbench_replay rescale WORKLOAD --ranks 2 -o FILE)");
  EXPECT_EQ(usage_error_of([] { check_replay_ranks(workload_of(4), 0, 3); }),
            "job.jsonl: the workload has 4 ranks, 3 GPUs are visible: rescale it first "
            "(collbench_replay rescale WORKLOAD --ranks 3 -o FILE)");
  // Enough: the processes of the launch, or at least as many GPUs (the first ones are used).
  EXPECT_EQ(usage_error_of([] { check_replay_ranks(workload_of(4), 4, 1); }), "");
  EXPECT_EQ(usage_error_of([] { check_replay_ranks(workload_of(4), 0, 8); }), "");
}

}  // namespace
}  // namespace collbench::replay::testing
