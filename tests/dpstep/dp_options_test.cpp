// Command-line parsing, configuration errors, the sweep plan and the config string.
#include "dp_options.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/errors.hpp"
#include "frame/google_benchmark_cases.hpp"
#include "frame/settings/algorithm_tunings.hpp"

namespace collbench::dp {
namespace {

using Values = std::vector<std::string>;

// The config string of a default StepConfig (4 ranks or any other count).
const std::string kDefaultConfig =
    "layers=8;width=4096;batch=2048;dtype=bfloat16;sync=overlap;bucket_mib=25;algo=nccl;"
    "optimizer=bf16";

DpOptions parse(std::vector<std::string> args) {
  args.insert(args.begin(), "collbench_dpstep");
  return parse_dp_options(args);
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
  EXPECT_EQ(o.base.model.layers, 8);
  EXPECT_EQ(o.base.model.width, 4096);
  EXPECT_EQ(o.base.model.batch, 2048);
  EXPECT_EQ(o.base.model.dtype, DataType::bfloat16);
  EXPECT_EQ(o.values("--sync"), (Values{"sync", "overlap"}));
  EXPECT_EQ(o.values("--bucket-mib"), Values{"25"});
  EXPECT_EQ(o.values("--algo"), Values{"nccl"});
  EXPECT_TRUE(o.common.gpu_counts.empty());
  EXPECT_FALSE(o.session.check);
  // The axes, in table order; the GPU counts are the run's, swept innermost.
  std::vector<std::string> axes;
  for (const Axis& axis : o.axes) axes.push_back(axis.setting->long_name());
  EXPECT_EQ(axes,
            (Values{"--dtype", "--sync", "--bucket-mib", "--algo", "--comm-schedule",
                    "--last-bucket-algo", "--lockstep", "--fuse-last-update", "--graph-memsets"}));
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
                             "--sync",
                             "overlap,ps,overlap"});
  EXPECT_EQ(o.base.model.layers, 3);
  EXPECT_EQ(o.base.model.width, 64);
  EXPECT_EQ(o.base.model.batch, 16);
  EXPECT_EQ(o.values("--dtype"), Values{"float"});
  EXPECT_EQ(o.values("--sync"), (Values{"overlap", "ps", "sharded"}));
  EXPECT_EQ(o.values("--bucket-mib"), (Values{"4", "25", "100"}));
  EXPECT_EQ(o.values("--algo"), (Values{"nccl", "ring"}));
  EXPECT_EQ(o.common.gpu_counts, "4,1,2");
  EXPECT_EQ(o.session.warmup, 2);
  EXPECT_EQ(o.session.iters, 7);
  EXPECT_EQ(o.common.csv_path, "out.csv");
  EXPECT_TRUE(o.session.check);
  EXPECT_FLOAT_EQ(o.base.model.learning_rate, 0.5f);
  EXPECT_TRUE(o.session.eager);
  EXPECT_EQ(o.base.model.epilogue, EpilogueMode::unfused);
  EXPECT_FALSE(o.base.model.master_weights);
  EXPECT_TRUE(parse({"--master-weights"}).base.model.master_weights);
  EXPECT_EQ(o.base.nccl_max_ctas, 8);
  EXPECT_EQ(parse({"--seed", "18446744073709551615"}).base.model.seed, 18446744073709551615u);
}

TEST(DpOptions, BadValuesAreOneLineErrorsNamingThem) {
  expect_usage_error({"--dtype", "fp17"}, "fp17");
  expect_usage_error({"--dtype", "int32"}, "int32");
  expect_usage_error({"--sync", "overlap,async"},
                     "--sync async: unknown sync mode (expected sync, overlap, ps, sharded)");
  expect_usage_error({"--bucket-mib", "0"}, "--bucket-mib 0");
  expect_usage_error({"--bucket-mib", "-4"}, "--bucket-mib -4");
  expect_usage_error({"-g", "0"}, "--gpus '0' is not a positive integer");
  expect_usage_error({"-g", "4-2"}, "--gpus range '4-2' runs backwards");
  expect_usage_error({"-g", "all"}, "--gpus all: give counts");
  expect_usage_error({"--seed", "-1"}, "--seed '-1'");
  expect_usage_error({"--seed", "18446744073709551616"}, "--seed '18446744073709551616'");
  try {
    expand_plan(parse({"--layers", "100000000", "-d", "float"}), 1);
    ADD_FAILURE() << "a model no GPU holds was planned";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("the model needs"), std::string::npos) << error.what();
  }
  EXPECT_EQ(rank_counts(parse({"-g", "1-4"}), 8),
            (std::vector<int>{1, 2, 3, 4}));  // collbench's ranges
  expect_usage_error({"--width", "100"}, "--width 100");
  expect_usage_error({"--layers", "0"}, "--layers 0");
  expect_usage_error({"--batch", "0"}, "--batch 0");
  expect_usage_error({"--iters", "0"}, "--iters 0");
  expect_usage_error({"--lr", "0"}, "--lr 0");
  expect_usage_error({"--momentum", "1"}, "--momentum 1");
  expect_usage_error({"--algo", "nccl,tree"}, "--algo tree");
  expect_usage_error({"--epilogue", "maybe"}, "--epilogue maybe: unknown epilogue mode");
  expect_usage_error({"--comm-lanes", "5"}, "--comm-lanes 5");
  expect_usage_error({"--comm-lanes", "0"}, "--comm-lanes 0");
  expect_usage_error({"--comm-schedule", "lanes,eager"},
                     "--comm-schedule eager: unknown communication schedule (expected lanes, "
                     "pipelined)");
  expect_usage_error({"--comm-schedule", "deferred"}, "--comm-schedule deferred: unknown");
  expect_usage_error({"--layers", "many"}, "--layers many: not a whole number");
  expect_usage_error({"--bucket-mib", "big"}, "--bucket-mib big: not a number");
  expect_usage_error({"--timeout", "0"}, "--timeout 0 is not above 0 and at most 1000000 seconds");
  expect_usage_error({"--nccl-max-ctas", "-1"}, "--nccl-max-ctas -1: must not be negative");
  expect_usage_error({"--bogus"}, "--bogus");
}

TEST(DpOptions, AlgorithmsAreRegistryNames) {
  EXPECT_EQ(parse({"--algo", "nccl,ring,nccl"}).values("--algo"), (Values{"nccl", "ring"}));
  expect_usage_error({"--algo", "tree"}, "--algo tree: unknown all-reduce algorithm (expected");
  expect_usage_error({"--algo", "nccl+ring"}, "--algo nccl+ring: unknown all-reduce algorithm");
}

// --preset best sets the best measured configuration; --preset default is no preset at all.
TEST(DpOptions, PresetBestSetsTheBestMeasuredConfiguration) {
  const DpOptions best = parse({"--preset", "best"});
  EXPECT_EQ(best.values("--sync"), Values{"overlap"});
  EXPECT_EQ(best.values("--bucket-mib"), Values{"33"});
  EXPECT_EQ(best.values("--algo"), Values{"copy_engine"});
  EXPECT_EQ(best.values("--comm-schedule"), Values{"pipelined"});
  EXPECT_EQ(best.values("--lockstep"), Values{"1"});
  EXPECT_EQ(best.values("--graph-memsets"), Values{"kernel"});
  EXPECT_EQ(best.values("--last-bucket-algo"), Values{"ring"});
  const std::vector<StepConfig> plan = expand_plan(best, 4);
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(benchmark_name(plan[1]),
            "dp_step/overlap/bucket_mib:33/algo:copy_engine/comm_schedule:pipelined/"
            "last_bucket:ring/lockstep:1/graph_memsets:kernel/ranks:4");
  // What the preset leaves alone keeps its default.
  EXPECT_EQ(best.base.comm_lanes, 2);
  EXPECT_EQ(best.base.model.layers, 8);
  EXPECT_EQ(best.values("--fuse-last-update"), Values{"0"});
  const DpOptions defaults = parse({});
  const DpOptions named_default = parse({"--preset", "default"});
  EXPECT_EQ(expand_plan(named_default, 4).size(), expand_plan(defaults, 4).size());
  for (const Axis& axis : defaults.axes) {
    EXPECT_EQ(named_default.values(axis.setting->long_name()), axis.values);
  }
}

// An option given on the command line replaces the preset's value of that option (the whole
// list), wherever it stands; the others keep the preset's.
TEST(DpOptions, GivenOptionsOverrideThePreset) {
  const DpOptions o = parse({"--algo", "nccl,ring", "--preset", "best", "--lockstep", "0,2"});
  EXPECT_EQ(o.values("--algo"), (Values{"nccl", "ring"}));
  EXPECT_EQ(o.values("--lockstep"), (Values{"0", "2"}));
  EXPECT_EQ(o.values("--bucket-mib"), Values{"33"});
  EXPECT_EQ(o.values("--last-bucket-algo"), Values{"ring"});
  EXPECT_EQ(parse({"--preset", "best", "--last-bucket-algo", "same"}).values("--last-bucket-algo"),
            Values{"same"});
  expect_usage_error({"--preset", "fastest"},
                     "--preset fastest: unknown preset (known: default, best)");
  // Each preset names options the parser has, with values it takes.
  for (const Preset& preset : presets()) EXPECT_NO_THROW(parse({"--preset", preset.name}));
}

TEST(DpOptions, HelpListsThePresetsAndWhatTheySet) {
  try {
    parse({"--help"});
    ADD_FAILURE() << "no help";
  } catch (const HelpRequested& help) {
    const std::string text = help.what();
    EXPECT_NE(text.find("--preset"), std::string::npos);
    EXPECT_NE(text.find("  default: the defaults"), std::string::npos) << text;
    EXPECT_NE(text.find("--sync overlap --bucket-mib 33 --algo copy_engine --comm-schedule "
                        "pipelined --lockstep 1 --graph-memsets kernel --last-bucket-algo ring"),
              std::string::npos)
        << text;
  }
}

// What --help must say of `setting`: its name, the start of its help and its type and default.
void expect_in_help(const std::string& help, const SettingDeclaration& setting) {
  EXPECT_NE(help.find(setting.long_name()), std::string::npos) << setting.long_name();
  EXPECT_NE(help.find(setting.help.substr(0, 20)), std::string::npos) << setting.long_name();
  if (setting.kind != ValueKind::flag && !setting.default_value.empty()) {
    EXPECT_NE(help.find(setting.long_name() + " " +
                        (setting.kind == ValueKind::integer ? "INT"
                         : setting.kind == ValueKind::real  ? "FLOAT"
                                                            : "TEXT") +
                        "=" + setting.default_value),
              std::string::npos)
        << setting.long_name();
  }
}

// --help comes from the tables: every setting with its default; each default passes its checks.
TEST(DpOptions, HelpAndDefaultsComeFromTheSettingsTables) {
  std::string help;
  try {
    parse({"--help"});
  } catch (const HelpRequested& text) {
    help = text.what();
  }
  for (const StepSetting& setting : step_settings()) {
    expect_in_help(help, setting);
    EXPECT_EQ(&find_setting(setting.long_name()), &setting);
  }
  for (const SessionSetting& setting : session_settings()) expect_in_help(help, setting);
  for (const Setting<CommonSettings>& setting : common_settings(dp_common_flags())) {
    expect_in_help(help, setting);
  }
  // --algo takes the implementations' tunings as collbench's does, and lists them as it does.
  EXPECT_NE(help.find(algorithm_tunings_help()), std::string::npos);
  EXPECT_NE(help.find("ctas=1..128, default 64 (COLLBENCH_RING_CTAS)"), std::string::npos);
  EXPECT_THROW(find_setting("--wgrad-split"), std::out_of_range);
}

// A model built in code passes the same rules as one parsed from the command line.
TEST(DpConfig, ModelsBuiltInCodeMeetTheSettingsRules) {
  EXPECT_NO_THROW(validate(ModelConfig{}));
  const auto expect_refused = [](ModelConfig model, const std::string& fragment) {
    try {
      validate(model);
      ADD_FAILURE() << "no error for " << fragment;
    } catch (const UsageError& error) {
      EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
    }
  };
  ModelConfig model;
  model.width = 100;
  expect_refused(model, "--width 100: must be a positive multiple of 8");
  model = ModelConfig{};
  model.layers = 0;
  expect_refused(model, "--layers 0: need at least 1 layer");
  model = ModelConfig{};
  model.dtype = DataType::int32;
  expect_refused(model, "--dtype int32: unknown model data type");
  model = ModelConfig{};
  model.learning_rate = std::nanf("");
  expect_refused(model, "--lr nan: not a number");
  model = ModelConfig{};
  model.momentum = 1.0f;
  expect_refused(model, "--momentum 1: must be in [0, 1)");
}

TEST(DpOptions, LauncherIsCheckedWhileParsing) {
  EXPECT_EQ(parse({}).common.launcher, "auto");
  for (const char* launcher : {"auto", "single", "mpi", "env"}) {
    EXPECT_EQ(parse({"--launcher", launcher}).common.launcher, launcher);
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
      ring_plan_with("--comm-schedule", "pipelined,lanes,pipelined");
  ASSERT_EQ(plan.size(), 4u);
  EXPECT_EQ(plan[0].comm_schedule, CommSchedule::pipelined);
  EXPECT_EQ(plan[0].ranks, 1);
  EXPECT_EQ(plan[1].comm_schedule, CommSchedule::pipelined);
  EXPECT_EQ(plan[1].ranks, 4);
  EXPECT_EQ(plan[2].comm_schedule, CommSchedule::lanes);
  EXPECT_EQ(plan[2].ranks, 1);
  EXPECT_EQ(parse({}).values("--comm-schedule"), Values{"lanes"});
}

TEST(DpOptions, FuseLastUpdateSweepsAndNeedsTwoshotForTheLastBucket) {
  const std::vector<StepConfig> plan =
      expand_plan(parse({"--sync", "overlap", "--algo", "nccl", "--last-bucket-algo", "twoshot",
                         "--fuse-last-update", "0,1,0", "-g", "1,4"}),
                  4);
  ASSERT_EQ(plan.size(), 4u);
  EXPECT_FALSE(plan[0].fuse_last_update);
  EXPECT_FALSE(plan[1].fuse_last_update);
  EXPECT_TRUE(plan[2].fuse_last_update);
  EXPECT_EQ(plan[3].ranks, 4);
  EXPECT_TRUE(plan[3].fuse_last_update);
  EXPECT_EQ(parse({}).values("--fuse-last-update"), Values{"0"});
  expect_usage_error({"--fuse-last-update", "2"}, "--fuse-last-update 2: must be 0 or 1");
  const std::string needs_twoshot =
      "--fuse-last-update 1: needs a --last-bucket-algo that fuses the update (twoshot), in every "
      "configuration";
  expect_usage_error({"--fuse-last-update", "1"}, needs_twoshot);
  expect_usage_error({"--fuse-last-update", "01"}, needs_twoshot);
  expect_usage_error({"--fuse-last-update", "1", "--last-bucket-algo", "ring"}, needs_twoshot);
  expect_usage_error({"--fuse-last-update", "1", "--last-bucket-algo", "nccl"}, needs_twoshot);
  expect_usage_error({"--fuse-last-update", "0,1", "--last-bucket-algo", "twoshot,same"},
                     needs_twoshot);
  expect_usage_error({"--fuse-last-update", "1", "--last-bucket-algo", "ring,twoshot"},
                     needs_twoshot);
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
  EXPECT_EQ(parse({}).values("--graph-memsets"), Values{"memset"});
  EXPECT_EQ(parse({"--warmup-ms", "1500"}).session.warmup_ms, 1500.0);
  EXPECT_EQ(parse({}).session.warmup_ms, 0.0);
  expect_usage_error({"--warmup-ms=-1"}, "--warmup-ms -1: must be from 0 to 3.6e+06");
  expect_usage_error({"--warmup-ms", "4e6"}, "--warmup-ms 4e6: must be from 0 to 3.6e+06");
  expect_usage_error({"--graph-memsets", "copy"},
                     "--graph-memsets copy: unknown graph memset mode (expected kernel, memset)");
}

TEST(DpOptions, PlanSweepsLockstepEachWithItsOwnBaseline) {
  const std::vector<StepConfig> plan = ring_plan_with("--lockstep", "2,0,2");
  ASSERT_EQ(plan.size(), 4u);
  EXPECT_EQ(plan[0].lockstep, 2);
  EXPECT_EQ(plan[1].lockstep, 2);
  EXPECT_EQ(plan[1].ranks, 4);
  EXPECT_EQ(plan[2].lockstep, 0);
  EXPECT_EQ(parse({}).values("--lockstep"), Values{"0"});
  expect_usage_error({"--lockstep", "-1"}, "--lockstep -1: must not be negative");
  expect_usage_error({"--lockstep", "layers"}, "layers");
}

// The last bucket's implementation is swept like --algo: "same" keeps --algo's (empty in the
// config), a registry name replaces it for that bucket; each with its own 1-GPU baseline.
TEST(DpOptions, PlanSweepsTheLastBucketsAlgorithm) {
  const std::vector<StepConfig> plan = ring_plan_with("--last-bucket-algo", "same,nccl,same");
  ASSERT_EQ(plan.size(), 4u);
  EXPECT_EQ(plan[0].last_bucket_algo, "");
  EXPECT_EQ(plan[1].last_bucket_algo, "");
  EXPECT_EQ(plan[1].ranks, 4);
  EXPECT_EQ(plan[2].last_bucket_algo, "nccl");
  EXPECT_EQ(plan[2].ranks, 1);
  EXPECT_EQ(plan[3].last_bucket_algo, "nccl");
  EXPECT_EQ(plan[3].ranks, 4);
  EXPECT_EQ(parse({}).values("--last-bucket-algo"), Values{"same"});
  expect_usage_error({"--last-bucket-algo", "nosuch"}, "--last-bucket-algo nosuch: unknown");
  // The removed NAME:N form reads as a setting now, and is refused as one.
  expect_usage_error({"--last-bucket-algo", "ring:2"}, "'2' is not SETTING=VALUE");
  expect_usage_error({"--last-bucket-algo", "ring+nccl"}, "--last-bucket-algo ring+nccl");
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
  const DpOptions options = parse({"--algo", "nccl,ring", "-g", "2", "--sync", "overlap"});
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

// Settings given with --algo, as collbench takes them, are the same knobs: in the config string
// after the plain name, and in the benchmark name, so ring and ring:ctas=32 are two rows.
TEST(DpConfig, AlgoSettingsOnTheCommandLine) {
  const std::vector<StepConfig> plan =
      expand_plan(parse({"--algo", "ring,ring:ctas=32", "-g", "2", "--sync", "overlap"}), 2);
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(config_string(plan[0]).find("ring_ctas"), std::string::npos);
  const std::string text = config_string(plan[1]);
  EXPECT_NE(text.find("algo=ring;"), std::string::npos) << text;
  EXPECT_EQ(text.substr(text.size() - std::string(";ring_ctas=32").size()), ";ring_ctas=32");
  EXPECT_NE(benchmark_name(plan[0]), benchmark_name(plan[1]));
  expect_usage_error({"--algo", "ring:ctas=0"}, "ring_ctas=0 is not 1..128");
  expect_usage_error({"--algo", "tree:ctas=8"}, "unknown all-reduce algorithm");
  EXPECT_NO_THROW(parse({"--algo", "copy_engine", "--last-bucket-algo", "twoshot:ctas=96",
                         "--fuse-last-update", "1"}));
}

// A last bucket of another implementation adds that implementation's knobs, each knob once; its
// 1-GPU baseline (no collective runs) has the same config string, so the two pair up.
TEST(DpConfig, LastBucketRowsCarryBothImplementationsKnobs) {
  const DpOptions options = parse(
      {"--algo", "copy_engine", "--last-bucket-algo", "ring", "-g", "1,4", "--sync", "overlap"});
  setenv("COLLBENCH_RING_CTAS", "16", 1);
  setenv("COLLBENCH_CE_ROUND_BYTES", "1048576", 1);
  const std::vector<StepConfig> plan = expand_plan(options, 4);
  unsetenv("COLLBENCH_CE_ROUND_BYTES");
  unsetenv("COLLBENCH_RING_CTAS");
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[0].ranks, 1);
  EXPECT_EQ(config_string(plan[0]), config_string(plan[1]));
  EXPECT_EQ(config_string(plan[1]),
            "layers=8;width=4096;batch=2048;dtype=bfloat16;sync=overlap;bucket_mib=25;"
            "algo=copy_engine;optimizer=bf16;last_bucket_algo=ring;ce_round_bytes=1048576;"
            "ring_ctas=16");
  EXPECT_EQ(benchmark_name(plan[1]),
            "dp_step/overlap/bucket_mib:25/algo:copy_engine/last_bucket:ring/ranks:4");
  // Knobs two implementations share (peer_launch for ring and oneshot) appear once.
  setenv("COLLBENCH_PEER_LAUNCH", "direct", 1);
  EXPECT_EQ(implementation_knobs({"ring", "oneshot"}), "peer_launch=direct");
  unsetenv("COLLBENCH_PEER_LAUNCH");
  EXPECT_EQ(implementation_knobs({"nccl", "copy_engine"}), "");
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

// Each setting shows in the config string and the benchmark name only when not the default.
TEST(DpConfig, SettingsShowOnlyWhenNotTheDefault) {
  StepConfig config;
  config.ranks = 4;
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
  config.last_bucket_algo = "ring";
  expect_named(";last_bucket_algo=ring", "/last_bucket:ring");
  config.comm_schedule = CommSchedule::pipelined;
  config.lockstep = 1;
  config.graph_memsets = GraphMemsets::kernel;
  expect_named(";comm_schedule=pipelined;last_bucket_algo=ring;lockstep=1;graph_memsets=kernel",
               "/comm_schedule:pipelined/last_bucket:ring/lockstep:1/graph_memsets:kernel");
  EXPECT_EQ(parse_comm_schedule("lanes"), CommSchedule::lanes);
  EXPECT_EQ(parse_comm_schedule("pipelined"), CommSchedule::pipelined);
  EXPECT_THROW(parse_comm_schedule("gemm_gated"), UsageError);
}

// collbench's conventions: -c checks, -d takes a list of types (each a row of its own), -g ranges.
TEST(DpOptions, SharesCollbenchsConventions) {
  EXPECT_TRUE(parse({"-c"}).session.check);
  EXPECT_FALSE(parse({"--check=0"}).session.check);
  const std::vector<StepConfig> plan =
      expand_plan(parse({"-d", "bfloat16,float", "--sync", "sync", "-g", "1-2"}), 2);
  ASSERT_EQ(plan.size(), 4u);
  EXPECT_NE(benchmark_name(plan[0]), benchmark_name(plan[2]));
  EXPECT_EQ(plan[2].model.dtype, DataType::float32);
  EXPECT_EQ(plan[3].ranks, 2);
}

// The frame's filter (frame/program.hpp), on the training step's names.
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
