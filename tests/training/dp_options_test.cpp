// Command-line parsing, configuration errors, the sweep plan and the config string.
#include "dp_options.hpp"

#include <gtest/gtest.h>

#include "core/errors.hpp"

namespace collbench::dp {
namespace {

const std::vector<std::string> kAlgorithms = {"nccl", "ring", "twoshot"};

// The config string of a default StepConfig (4 ranks or any other count).
const std::string kDefaultConfig =
    "layers=8;width=4096;batch=2048;dtype=bfloat16;sync=overlap;bucket_mib=25;algo=nccl;"
    "optimizer=bf16";

DpOptions parse(std::vector<std::string> args) {
  args.insert(args.begin(), "collbench_dpstep");
  return parse_dp_options(args, kAlgorithms);
}

// A bad value gives a UsageError whose one-line message names it.
void expect_usage_error(const std::vector<std::string>& args, const std::string& fragment) {
  try {
    parse(args);
    ADD_FAILURE() << "no error for " << ::testing::PrintToString(args);
  } catch (const UsageError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find(fragment), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST(DpOptions, DefaultsMatchTheTargetConfiguration) {
  const DpOptions o = parse({});
  EXPECT_EQ(o.model.layers, 8);
  EXPECT_EQ(o.model.width, 4096);
  EXPECT_EQ(o.model.batch, 2048);
  EXPECT_EQ(o.model.dtype, DataType::bfloat16);
  EXPECT_EQ(o.schemes, (std::vector<SyncScheme>{SyncScheme::sync, SyncScheme::overlap}));
  EXPECT_EQ(o.bucket_mib, std::vector<double>{25});
  EXPECT_EQ(o.algos, std::vector<std::string>{"nccl"});
  EXPECT_TRUE(o.ranks.empty());
  EXPECT_FALSE(o.check);
  EXPECT_EQ(o.wgrad_splits, std::vector<WgradSplit>{WgradSplit::none});
}

TEST(DpOptions, ParsesListsAndValues) {
  const DpOptions o = parse({"--layers",
                             "3",
                             "--width",
                             "64",
                             "--batch",
                             "16",
                             "--dtype",
                             "float",
                             "--sync",
                             "overlap,ps,sharded",
                             "--bucket-mib",
                             "4,25,100",
                             "--algo",
                             "nccl,ring",
                             "-g",
                             "4,1,2",
                             "--warmup",
                             "2",
                             "--iters",
                             "7",
                             "--csv",
                             "out.csv",
                             "--check",
                             "--lr",
                             "0.5",
                             "--eager",
                             "--epilogue",
                             "unfused",
                             "--no-master-weights",
                             "--nccl-max-ctas",
                             "8",
                             "--wgrad-split",
                             "none,all,none"});
  EXPECT_EQ(o.model.layers, 3);
  EXPECT_EQ(o.model.width, 64);
  EXPECT_EQ(o.model.batch, 16);
  EXPECT_EQ(o.model.dtype, DataType::float32);
  EXPECT_EQ(o.schemes,
            (std::vector<SyncScheme>{SyncScheme::overlap, SyncScheme::ps, SyncScheme::sharded}));
  EXPECT_EQ(o.bucket_mib, (std::vector<double>{4, 25, 100}));
  EXPECT_EQ(o.algos, (std::vector<std::string>{"nccl", "ring"}));
  EXPECT_EQ(o.ranks, (std::vector<int>{4, 1, 2}));
  EXPECT_EQ(o.warmup, 2);
  EXPECT_EQ(o.iters, 7);
  EXPECT_EQ(o.csv_path, "out.csv");
  EXPECT_TRUE(o.check);
  EXPECT_FLOAT_EQ(o.model.learning_rate, 0.5f);
  EXPECT_TRUE(o.eager);
  EXPECT_EQ(o.model.epilogue, EpilogueMode::unfused);
  EXPECT_FALSE(o.model.master_weights);
  EXPECT_EQ(o.nccl_max_ctas, 8);
  EXPECT_EQ(o.wgrad_splits, (std::vector<WgradSplit>{WgradSplit::none, WgradSplit::all}));
}

TEST(DpOptions, BadValuesAreOneLineErrorsNamingThem) {
  expect_usage_error({"--dtype", "fp17"}, "fp17");
  expect_usage_error({"--dtype", "int32"}, "int32");
  expect_usage_error({"--sync", "overlap,async"}, "'async'");
  expect_usage_error({"--bucket-mib", "0"}, "--bucket-mib 0");
  expect_usage_error({"--bucket-mib", "-4"}, "--bucket-mib -4");
  expect_usage_error({"-g", "0"}, "-g 0");
  expect_usage_error({"--width", "100"}, "--width 100");
  expect_usage_error({"--layers", "0"}, "--layers 0");
  expect_usage_error({"--batch", "0"}, "--batch 0");
  expect_usage_error({"--iters", "0"}, "--iters 0");
  expect_usage_error({"--lr", "0"}, "--lr 0");
  expect_usage_error({"--momentum", "1"}, "--momentum 1");
  expect_usage_error({"--algo", "nccl,tree"}, "--algo tree");
  expect_usage_error({"--epilogue", "maybe"}, "'maybe'");
  expect_usage_error({"--wgrad-split", "last,half"}, "weight-gradient split 'half'");
  expect_usage_error({"--comm-lanes", "5"}, "--comm-lanes 5");
  expect_usage_error({"--comm-lanes", "0"}, "--comm-lanes 0");
  expect_usage_error({"--comm-schedule", "lanes,eager"}, "communication schedule 'eager'");
  expect_usage_error({"--layers", "many"}, "many");
  expect_usage_error({"--bogus"}, "--bogus");
}

// A mixed pair "A+B" is one --algo item: buckets alternate between two registry names.
TEST(DpOptions, MixedPairsOfTwoDistinctKnownAlgorithms) {
  EXPECT_EQ(parse({"--algo", "nccl+ring,ring+nccl,ring"}).algos,
            (std::vector<std::string>{"nccl+ring", "ring+nccl", "ring"}));
  expect_usage_error({"--algo", "ring+ring"}, "--algo ring+ring: a mixed pair needs two different");
  expect_usage_error({"--algo", "nccl+ring+nccl"}, "--algo nccl+ring+nccl: a mixed algorithm");
  expect_usage_error({"--algo", "ring+"}, "--algo ring+: empty name");
  expect_usage_error({"--algo", "+ring"}, "--algo +ring: empty name");
  expect_usage_error({"--algo", "foo+ring"}, "--algo foo+ring: unknown all-reduce algorithm 'foo'");
  expect_usage_error({"--algo", "nccl,ring+tree"}, "unknown all-reduce algorithm 'tree'");
  // A plain unknown name keeps its message.
  expect_usage_error({"--algo", "tree"}, "--algo tree: unknown all-reduce algorithm (known:");
}

TEST(DpOptions, LauncherIsCheckedWhileParsing) {
  EXPECT_EQ(parse({}).launcher, "auto");
  for (const char* launcher : {"auto", "single", "mpi", "env"}) {
    EXPECT_EQ(parse({"--launcher", launcher}).launcher, launcher);
  }
  // Rejected before anything reads the environment, as one line naming the value.
  expect_usage_error({"--launcher", "srun"}, "--launcher 'srun'");
  expect_usage_error({"--launcher", ""}, "--launcher ''");
}

TEST(DpOptions, HelpIsNotAnError) {
  EXPECT_THROW(parse({"--help"}), HelpRequested);
}

TEST(DpOptions, DefaultRanksAreOneAndAllVisible) {
  const DpOptions o = parse({});
  EXPECT_EQ(rank_counts(o, 4), (std::vector<int>{1, 4}));
  EXPECT_EQ(rank_counts(o, 1), (std::vector<int>{1}));
  EXPECT_EQ(rank_counts(o, 0), (std::vector<int>{1}));
  EXPECT_EQ(rank_counts(parse({"-g", "4,2,4,1"}), 8), (std::vector<int>{1, 2, 4}));
}

TEST(DpOptions, PlanSweepsBucketsOnlyForBucketedModesAndRanksAscending) {
  const DpOptions o = parse({"--sync", "sync,overlap,ps,sharded", "--bucket-mib", "4,25,100",
                             "--algo", "nccl,ring", "-g", "4,1,2"});
  const std::vector<StepConfig> plan = expand_plan(o, 4);
  // sync: 1 bucket x 2 algos x 3 ranks; the others: 3 buckets x 2 algos x 3 ranks each.
  EXPECT_EQ(plan.size(), 6u + 3u * 18u);
  for (std::size_t i = 0; i < plan.size(); i += 3) {
    EXPECT_EQ(plan[i].ranks, 1);  // the 1-GPU baseline comes first in every group
    EXPECT_EQ(plan[i + 1].ranks, 2);
    EXPECT_EQ(plan[i + 2].ranks, 4);
    EXPECT_EQ(config_string(plan[i]), config_string(plan[i + 2]));
  }
  EXPECT_EQ(plan[0].scheme, SyncScheme::sync);
  EXPECT_EQ(bucket_cap_bytes(plan[0]), 0u);
  EXPECT_EQ(plan[6].scheme, SyncScheme::overlap);
  EXPECT_EQ(bucket_cap_bytes(plan[6]), 4u << 20);
}

// The plan of overlap, the ring, 1 and 4 GPUs, with `option` given `values`.
std::vector<StepConfig> ring_plan_with(const std::string& option, const std::string& values) {
  return expand_plan(parse({"--sync", "overlap", "--algo", "ring", option, values, "-g", "1,4"}),
                     4);
}

TEST(DpOptions, PlanSweepsCommSchedulesEachWithItsOwnBaseline) {
  const std::vector<StepConfig> plan =
      ring_plan_with("--comm-schedule", "pipelined,lanes,pipelined,gemm_gated");
  ASSERT_EQ(plan.size(), 6u);
  EXPECT_EQ(plan[4].comm_schedule, CommSchedule::gemm_gated);
  EXPECT_EQ(plan[0].comm_schedule, CommSchedule::pipelined);
  EXPECT_EQ(plan[0].ranks, 1);
  EXPECT_EQ(plan[1].comm_schedule, CommSchedule::pipelined);
  EXPECT_EQ(plan[1].ranks, 4);
  EXPECT_EQ(plan[2].comm_schedule, CommSchedule::lanes);
  EXPECT_EQ(plan[2].ranks, 1);
  EXPECT_EQ(parse({}).comm_schedules, (std::vector<CommSchedule>{CommSchedule::lanes}));
  EXPECT_EQ(parse({}).defer_first, 0);
  const std::vector<StepConfig> deferred =
      expand_plan(parse({"--sync", "overlap", "--comm-schedule", "deferred", "--defer-first", "3",
                         "-g", "1,4"}),
                  4);
  ASSERT_EQ(deferred.size(), 2u);
  EXPECT_EQ(deferred[1].defer_first, 3);
  expect_usage_error({"--defer-first", "-1"}, "--defer-first -1: must not be negative");
}

TEST(DpOptions, FuseLastUpdateSweepsAndNeedsTheRingOrTwoshotForTheLastBucket) {
  const std::vector<StepConfig> plan =
      expand_plan(parse({"--sync", "overlap", "--algo", "nccl", "--last-bucket-algo", "ring",
                         "--fuse-last-update", "0,1,0", "-g", "1,4"}),
                  4);
  ASSERT_EQ(plan.size(), 4u);
  EXPECT_FALSE(plan[0].fuse_last_update);
  EXPECT_FALSE(plan[1].fuse_last_update);
  EXPECT_TRUE(plan[2].fuse_last_update);
  EXPECT_EQ(plan[3].ranks, 4);
  EXPECT_TRUE(plan[3].fuse_last_update);
  EXPECT_EQ(parse({}).fuse_last_update, (std::vector<int>{0}));
  expect_usage_error({"--fuse-last-update", "2"}, "--fuse-last-update 2: must be 0 or 1");
  const std::string needs_ring =
      "--fuse-last-update 1: needs --last-bucket-algo ring or twoshot (the last bucket alone, in "
      "every configuration)";
  expect_usage_error({"--fuse-last-update", "1"}, needs_ring);
  expect_usage_error({"--fuse-last-update", "1", "--last-bucket-algo", "ring:2"}, needs_ring);
  expect_usage_error({"--fuse-last-update", "1", "--last-bucket-algo", "twoshot:2"}, needs_ring);
  expect_usage_error({"--fuse-last-update", "1", "--last-bucket-algo", "nccl"}, needs_ring);
  expect_usage_error({"--fuse-last-update", "0,1", "--last-bucket-algo", "ring,same"}, needs_ring);
  expect_usage_error({"--fuse-last-update", "1", "--last-bucket-algo", "ring,twoshot"}, needs_ring);
  EXPECT_NO_THROW(parse({"--fuse-last-update", "0", "--last-bucket-algo", "same"}));
  EXPECT_NO_THROW(parse({"--fuse-last-update", "1", "--last-bucket-algo", "twoshot"}));
}

TEST(DpOptions, GraphMemsetsSweepEachWithItsOwnBaseline) {
  const std::vector<StepConfig> plan = expand_plan(
      parse({"--sync", "overlap", "--graph-memsets", "memset,kernel,memset", "-g", "1,4"}), 4);
  ASSERT_EQ(plan.size(), 4u);
  EXPECT_EQ(plan[0].graph_memsets, GraphMemsets::memset);
  EXPECT_EQ(plan[1].graph_memsets, GraphMemsets::memset);
  EXPECT_EQ(plan[1].ranks, 4);
  EXPECT_EQ(plan[2].graph_memsets, GraphMemsets::kernel);
  EXPECT_EQ(plan[3].graph_memsets, GraphMemsets::kernel);
  EXPECT_EQ(config_string(plan[0]), config_string(plan[1]));
  EXPECT_NE(config_string(plan[1]), config_string(plan[3]));
  EXPECT_EQ(parse({}).graph_memsets, (std::vector<GraphMemsets>{GraphMemsets::memset}));
  EXPECT_EQ(parse({"--warmup-ms", "1500"}).warmup_ms, 1500.0);
  EXPECT_EQ(parse({}).warmup_ms, 0.0);
  expect_usage_error({"--warmup-ms=-1"}, "--warmup-ms -1: must be from 0 to 3.6e+06");
  expect_usage_error({"--warmup-ms", "4e6"}, "--warmup-ms 4000000: must be from 0 to 3.6e+06");
  expect_usage_error({"--graph-memsets", "copy"},
                     "unknown graph memset mode 'copy' (expected kernel, memset)");
}

TEST(DpOptions, PlanSweepsLockstepEachWithItsOwnBaseline) {
  const std::vector<StepConfig> plan = ring_plan_with("--lockstep", "2,0,2");
  ASSERT_EQ(plan.size(), 4u);
  EXPECT_EQ(plan[0].lockstep, 2);
  EXPECT_EQ(plan[1].lockstep, 2);
  EXPECT_EQ(plan[1].ranks, 4);
  EXPECT_EQ(plan[2].lockstep, 0);
  EXPECT_EQ(parse({}).locksteps, (std::vector<int>{0}));
  expect_usage_error({"--lockstep", "-1"}, "--lockstep -1: must not be negative");
  expect_usage_error({"--lockstep", "layers"}, "layers");
}

TEST(DpOptions, PlanSweepsLastLayerBucketsEachWithItsOwnBaseline) {
  const std::vector<StepConfig> plan = ring_plan_with("--last-layer-buckets", "0,2,0");
  ASSERT_EQ(plan.size(), 4u);
  EXPECT_EQ(plan[0].last_layer_buckets, 0);
  EXPECT_EQ(plan[2].last_layer_buckets, 2);
  EXPECT_EQ(plan[3].last_layer_buckets, 2);
  EXPECT_EQ(plan[3].ranks, 4);
  EXPECT_EQ(parse({}).last_layer_buckets, (std::vector<int>{0}));
  expect_usage_error({"--last-layer-buckets", "-1"}, "--last-layer-buckets -1: must be from 0 to");
  expect_usage_error({"--last-layer-buckets", "65"}, "--last-layer-buckets 65: must be from 0 to");
  expect_usage_error({"--last-layer-buckets", "half"}, "half");
}

// The last bucket's implementation is swept like --algo: "same" keeps --algo's (empty in the
// config), a registry name replaces it for that bucket, NAME:N for the last N; each with its own
// 1-GPU baseline. "nccl:1" is "nccl".
TEST(DpOptions, PlanSweepsTheLastBucketsAlgorithm) {
  const std::vector<StepConfig> plan =
      ring_plan_with("--last-bucket-algo", "same,nccl,same,nccl:3,nccl:1");
  ASSERT_EQ(plan.size(), 6u);
  EXPECT_EQ(plan[0].last_bucket_algo, "");
  EXPECT_EQ(plan[1].last_bucket_algo, "");
  EXPECT_EQ(plan[1].ranks, 4);
  EXPECT_EQ(plan[2].last_bucket_algo, "nccl");
  EXPECT_EQ(plan[2].last_buckets, 1);
  EXPECT_EQ(plan[2].ranks, 1);
  EXPECT_EQ(plan[3].last_bucket_algo, "nccl");
  EXPECT_EQ(plan[4].last_bucket_algo, "nccl");
  EXPECT_EQ(plan[4].last_buckets, 3);
  EXPECT_EQ(plan[5].last_buckets, 3);
  EXPECT_EQ(plan[5].ranks, 4);
  EXPECT_EQ(parse({}).last_buckets, std::vector<LastBuckets>{LastBuckets{}});
  expect_usage_error({"--last-bucket-algo", "nosuch"}, "--last-bucket-algo nosuch: unknown");
  expect_usage_error({"--last-bucket-algo", "nosuch:2"},
                     "--last-bucket-algo nosuch:2: unknown all-reduce algorithm 'nosuch'");
  expect_usage_error({"--last-bucket-algo", "ring+nccl"}, "--last-bucket-algo ring+nccl");
  for (const char* bad : {"ring:0", "ring:", "ring:x", "ring:-1", "ring:2:3", "ring:99999"})
    expect_usage_error({"--last-bucket-algo", bad}, std::string("--last-bucket-algo ") + bad +
                                                        ": the count after ':' must be a whole");
  expect_usage_error({"--last-bucket-algo", "same:2"}, "--last-bucket-algo same:2: same takes no");
}

TEST(DpConfig, ConfigStringHasTheFixedKeyOrder) {
  StepConfig config;
  config.ranks = 4;
  EXPECT_EQ(config_string(config), kDefaultConfig);
  config.scheme = SyncScheme::sync;
  config.model.dtype = DataType::float32;
  config.bucket_mib = 0.5;
  EXPECT_EQ(config_string(config),
            "layers=8;width=4096;batch=2048;dtype=float;sync=sync;bucket_mib=0;algo=nccl");
  config.scheme = SyncScheme::sharded;
  config.model.dtype = DataType::bfloat16;
  config.model.master_weights = true;
  config.nccl_max_ctas = 16;
  EXPECT_EQ(config_string(config),
            "layers=8;width=4096;batch=2048;dtype=bfloat16;sync=sharded;bucket_mib=0.5;algo=nccl;"
            "optimizer=fp32_master;"
            "nccl_max_ctas=16");
  EXPECT_EQ(benchmark_name(config), "dp_step/sharded/bucket_mib:0.5/algo:nccl/ranks:4");
}

// The all-reduce's own changed knobs, read from the environment when the plan is made, end the
// config string; a bad one stops the plan.
TEST(DpConfig, ConfigStringEndsWithTheAlgorithmsChangedKnobs) {
  DpOptions options;
  options.algos = {"nccl", "ring"};
  options.ranks = {2};
  options.schemes = {SyncScheme::overlap};
  options.bucket_mib = {25};
  setenv("COLLBENCH_RING_CTAS", "32", 1);
  const std::vector<StepConfig> plan = expand_plan(options, 2);
  setenv("COLLBENCH_RING_CTAS", "many", 1);
  EXPECT_THROW(expand_plan(options, 2), UsageError);
  unsetenv("COLLBENCH_RING_CTAS");
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[0].algo, "nccl");
  EXPECT_EQ(config_string(plan[0]).find("ring_ctas"), std::string::npos);
  EXPECT_EQ(plan[1].algo, "ring");
  const std::string text = config_string(plan[1]);
  EXPECT_EQ(text.substr(text.size() - std::string(";ring_ctas=32").size()), ";ring_ctas=32");
}

// A mixed pair's rows carry its name as given and both implementations' knobs; its 1-GPU
// baseline (no collective runs) has the same config string, so the two pair up.
TEST(DpConfig, MixedPairRowsCarryItsNameAndBothImplementationsKnobs) {
  DpOptions options;
  options.algos = {"copy_engine+ring"};
  options.ranks = {1, 4};
  options.schemes = {SyncScheme::overlap};
  setenv("COLLBENCH_RING_CTAS", "16", 1);
  const std::vector<StepConfig> plan = expand_plan(options, 4);
  unsetenv("COLLBENCH_RING_CTAS");
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[0].ranks, 1);
  EXPECT_EQ(plan[0].algo, "copy_engine+ring");
  EXPECT_EQ(config_string(plan[0]), config_string(plan[1]));
  EXPECT_EQ(config_string(plan[1]),
            "layers=8;width=4096;batch=2048;dtype=bfloat16;sync=overlap;bucket_mib=25;"
            "algo=copy_engine+ring;optimizer=bf16;ring_ctas=16");
  EXPECT_EQ(benchmark_name(plan[1]), "dp_step/overlap/bucket_mib:25/algo:copy_engine+ring/ranks:4");
}

TEST(DpConfig, GemmSmMarginAppliesOnlyBesideCommunication) {
  StepConfig config;
  config.ranks = 4;
  EXPECT_EQ(backward_gemm_sm_target(config, 132), 0);  // no margin: every SM
  config.gemm_sm_margin = 16;
  EXPECT_EQ(backward_gemm_sm_target(config, 132), 116);
  config.gemm_sm_margin = 200;
  EXPECT_EQ(backward_gemm_sm_target(config, 132), 1);
  config.ranks = 1;  // nothing to leave SMs for: the 1-GPU baseline keeps them all
  EXPECT_EQ(backward_gemm_sm_target(config, 132), 0);
}

TEST(DpConfig, WeightGradientIsCutOnlyWhereThePolicyAndTheRanksSayso) {
  StepConfig config;
  config.ranks = 2;
  EXPECT_FALSE(cuts_weight_gradient(config, 0));  // default: whole GEMMs
  config.wgrad_split = WgradSplit::last;
  EXPECT_TRUE(cuts_weight_gradient(config, 0));  // the step's last gradient, layer 0's
  EXPECT_FALSE(cuts_weight_gradient(config, 1));
  config.wgrad_split = WgradSplit::all;
  EXPECT_TRUE(cuts_weight_gradient(config, 5));
  config.ranks = 1;  // nothing starts early on one GPU: its baseline keeps whole GEMMs
  EXPECT_FALSE(cuts_weight_gradient(config, 0));
  // Only a split other than the default shows, in the config string and the benchmark name.
  config.ranks = 4;
  config.wgrad_split = WgradSplit::last;
  EXPECT_EQ(config_string(config), kDefaultConfig + ";wgrad_split=last");
  EXPECT_EQ(benchmark_name(config),
            "dp_step/overlap/bucket_mib:25/algo:nccl/wgrad_split:last/ranks:4");
  config.wgrad_split = WgradSplit::none;
  EXPECT_EQ(benchmark_name(config), "dp_step/overlap/bucket_mib:25/algo:nccl/ranks:4");
  config.comm_lanes = 1;
  EXPECT_EQ(config_string(config), kDefaultConfig + ";comm_lanes=1");
  config.comm_lanes = 2;
  // The config string's suffix and the name's settings part for what `config` now holds.
  const auto expect_named = [&config](const std::string& config_suffix,
                                      const std::string& name_part) {
    EXPECT_EQ(config_string(config), kDefaultConfig + config_suffix);
    EXPECT_EQ(benchmark_name(config),
              "dp_step/overlap/bucket_mib:25/algo:nccl" + name_part + "/ranks:4");
  };
  config.comm_schedule = CommSchedule::pipelined;
  expect_named(";comm_schedule=pipelined", "/comm_schedule:pipelined");
  config.comm_schedule = CommSchedule::gemm_gated;
  expect_named(";comm_schedule=gemm_gated", "/comm_schedule:gemm_gated");
  config.comm_schedule = CommSchedule::lanes;
  config.lockstep = 2;
  expect_named(";lockstep=2", "/lockstep:2");
  config.lockstep = 0;
  config.fuse_last_update = true;
  expect_named(";fused_update=1", "/fused_update");
  config.fuse_last_update = false;
  config.graph_memsets = GraphMemsets::kernel;
  expect_named(";graph_memsets=kernel", "/graph_memsets:kernel");
  config.graph_memsets = GraphMemsets::memset;
  config.last_layer_buckets = 3;
  config.wgrad_split = WgradSplit::last;
  expect_named(";wgrad_split=last;last_layer_buckets=3", "/wgrad_split:last/last_layer_buckets:3");
  // The layout takes it with 2+ ranks only: the 1-GPU baseline keeps the plain layout.
  EXPECT_EQ(layout_last_layer_buckets(config), 3);
  config.ranks = 1;
  EXPECT_EQ(layout_last_layer_buckets(config), 0);
  config.ranks = 4;
  config.last_layer_buckets = 0;
  config.wgrad_split = WgradSplit::none;
  config.last_bucket_algo = "ring";
  expect_named(";last_bucket_algo=ring", "/last_bucket:ring");
  config.last_buckets = 2;
  expect_named(";last_bucket_algo=ring;last_buckets=2", "/last_buckets:2:ring");
  config.last_bucket_algo.clear();
  EXPECT_EQ(parse_comm_schedule("lanes"), CommSchedule::lanes);
  EXPECT_EQ(parse_comm_schedule("deferred"), CommSchedule::deferred);
  config.comm_schedule = CommSchedule::deferred;
  expect_named(";comm_schedule=deferred", "/comm_schedule:deferred");
  config.defer_first = 3;
  expect_named(";comm_schedule=deferred;defer_first=3", "/comm_schedule:deferred_first_3");
  config.comm_schedule = CommSchedule::pipelined;  // only the deferred schedule defers
  expect_named(";comm_schedule=pipelined", "/comm_schedule:pipelined");
}

TEST(DpOptions, BenchmarkFilterSelectsLikeGoogleBenchmark) {
  EXPECT_TRUE(passes_benchmark_filter("dp_step/overlap/bucket_mib:25/algo:nccl/ranks:4", ""));
  EXPECT_TRUE(passes_benchmark_filter("dp_step/overlap/bucket_mib:25/algo:nccl/ranks:4", "all"));
  EXPECT_TRUE(passes_benchmark_filter("dp_step/overlap/bucket_mib:25/algo:nccl/ranks:4",
                                      "overlap.*ranks:4"));
  EXPECT_FALSE(passes_benchmark_filter("dp_step/sync/bucket_mib:0/algo:nccl/ranks:4", "overlap"));
  EXPECT_FALSE(
      passes_benchmark_filter("dp_step/overlap/bucket_mib:25/algo:nccl/ranks:4", "-overlap"));
  EXPECT_THROW(passes_benchmark_filter("x", "("), UsageError);
}

}  // namespace
}  // namespace collbench::dp
