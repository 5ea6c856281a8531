// Tests of sweep expansion: sizes, order, and what each case carries.
#include "collbench/sweep_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/errors.hpp"
#include "output/case_sinks.hpp"

namespace collbench {
namespace {

// One size, out of place: the sweep reduced to a single case per algorithm.
Options one_size(const std::string& op, std::vector<std::string> algos, int gpus,
                 std::size_t bytes) {
  Options options;
  options.ops = {op};
  options.algos = std::move(algos);
  options.common.gpu_counts = std::to_string(gpus);
  options.min_bytes = options.max_bytes = bytes;
  options.in_place = InPlaceMode::out_of_place;
  return options;
}

TEST(SweepPlan, SizesByFactorAndByStep) {
  Options options;
  options.min_bytes = 8;
  options.max_bytes = 64;
  EXPECT_EQ(sweep_sizes(options), (std::vector<std::size_t>{8, 16, 32, 64}));
  options.step_factor = 3;
  EXPECT_EQ(sweep_sizes(options), (std::vector<std::size_t>{8, 24}));
  options.step_bytes = 20;
  EXPECT_EQ(sweep_sizes(options), (std::vector<std::size_t>{8, 28, 48}));
  options.min_bytes = options.max_bytes = 1 << 20;
  EXPECT_EQ(sweep_sizes(options), (std::vector<std::size_t>{1 << 20}));
  options.step_bytes = 0;
  options.min_bytes = 8;
  options.max_bytes = 8ull << 30;
  options.step_factor = 2;
  EXPECT_EQ(sweep_sizes(options).size(), 31u);  // 8 B .. 8 GiB, the standard sweep
}

TEST(SweepPlan, ExpandsEveryDimensionGroupedByRankCount) {
  Options options;
  options.ops = {"all_reduce", "broadcast"};
  options.common.gpu_counts = "2,4";
  options.types = {DataType::float32, DataType::int32};
  options.reduce_ops = {ReduceOp::sum, ReduceOp::max};
  options.roots = "all";
  options.min_bytes = 1024;
  options.max_bytes = 2048;
  const std::vector<Case> cases = build_sweep(options, 4);
  // Per rank count n: all_reduce 2 types x 2 redops x 2 sizes x 2 places; broadcast 2 types x n
  // roots x 2 x 2.
  EXPECT_EQ(cases.size(), (16u + 2 * 2 * 4) + (16u + 2 * 4 * 4));
  EXPECT_EQ(cases.front().ranks, 2);
  EXPECT_EQ(cases.back().ranks, 4);
  for (std::size_t i = 1; i < cases.size(); ++i) EXPECT_LE(cases[i - 1].ranks, cases[i].ranks);
  for (const Case& c : cases) {
    if (c.spec->name == "broadcast") {
      EXPECT_EQ(c.op, ReduceOp::none);
      EXPECT_GE(c.root, 0);
      EXPECT_LT(c.root, c.ranks);
    } else {
      EXPECT_EQ(c.root, -1);
      EXPECT_NE(c.op, ReduceOp::none);
    }
  }
  EXPECT_EQ(benchmark_name(cases.front()),
            "all_reduce/nccl/ranks:2/float/sum/root:-1/out_of_place/bytes:1024");
  EXPECT_EQ(display_name(cases[1]), "all_reduce nccl float sum 2r 1 KiB in-place");
}

TEST(SweepPlan, RecordsTheBytesActuallyMoved) {
  const Case c = build_sweep(one_size("all_gather", {"nccl"}, 3, 1000), 3).front();
  // 250 floats over 3 ranks: 83 per rank, rounded down to whole 16-byte lines (4 floats) = 80.
  EXPECT_EQ(c.counts.param, 80u);
  EXPECT_EQ(c.bytes(), 80u * 3 * 4);
  EXPECT_EQ(c.requested_bytes, 1000u);
}

TEST(SweepPlan, SizesThatRoundToTheSameCountsAreMeasuredOnce) {
  Options options;
  options.ops = {"all_gather", "all_reduce"};
  options.common.gpu_counts = "2";
  options.min_bytes = 8;
  options.max_bytes = 64;
  options.in_place = InPlaceMode::out_of_place;
  std::vector<std::size_t> gather_bytes, reduce_bytes;
  for (const Case& c : build_sweep(options, 2)) {
    (c.spec->name == "all_gather" ? gather_bytes : reduce_bytes).push_back(c.bytes());
  }
  // all_gather moves whole 16-byte lines per rank: 8 and 16 B move nothing, 32 B one line each.
  EXPECT_EQ(gather_bytes, (std::vector<std::size_t>{0, 32, 64}));
  EXPECT_EQ(reduce_bytes, (std::vector<std::size_t>{8, 16, 32, 64}));
}

// --repeat: the whole sweep once per pass, passes in order, each case named apart.
TEST(SweepPlan, RepeatReplicatesTheWholeSweepInPassOrder) {
  Options options;
  options.ops = {"all_reduce", "broadcast"};
  options.common.gpu_counts = "2,4";
  options.min_bytes = 1024;
  options.max_bytes = 4096;
  const std::vector<Case> once = build_sweep(options, 4);
  options.repeats = 3;
  const std::vector<Case> cases = build_sweep(options, 4);
  ASSERT_EQ(cases.size(), 3 * once.size());
  std::set<std::string> names;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    const Case& first = once[i % once.size()];
    EXPECT_EQ(c.repeat, static_cast<int>(i / once.size())) << i;
    EXPECT_EQ(first.repeat, 0);
    EXPECT_EQ(c.spec, first.spec);
    EXPECT_EQ(c.ranks, first.ranks);
    EXPECT_EQ(c.requested_bytes, first.requested_bytes);
    EXPECT_EQ(c.in_place, first.in_place);
    names.insert(benchmark_name(c));
  }
  EXPECT_EQ(names.size(), cases.size());
  EXPECT_EQ(benchmark_name(cases.front()), benchmark_name(once.front()));
  EXPECT_EQ(benchmark_name(cases[2 * once.size()]), benchmark_name(once.front()) + "/repeat:2");
  EXPECT_EQ(display_name(cases[once.size()]), display_name(once.front()) + " (pass 2)");
}

TEST(SweepPlan, RepeatsCountTowardTheCaseLimit) {
  Options options = one_size("all_reduce", {"nccl"}, 2, 1024);
  options.repeats = static_cast<int>(kMaxCases) + 1;
  try {
    build_sweep(options, 2);
    ADD_FAILURE() << "more than kMaxCases cases accepted";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("selects 1000001 cases"), std::string::npos)
        << error.what();
  }
}

// Tests that set a ring knob in the environment; it is gone afterwards, whatever failed.
class RingKnobEnvironment : public ::testing::Test {
 protected:
  void TearDown() override { unsetenv("COLLBENCH_RING_CTAS"); }
};

// A hand-built algorithm's changed knobs travel with its cases (CSV config column, display name);
// NCCL's cases stay plain, and a bad knob stops the plan before anything runs.
TEST_F(RingKnobEnvironment, CasesCarryTheAlgorithmsChangedKnobs) {
  const Options options = one_size("all_reduce", {"nccl", "ring"}, 2, 1024);
  EXPECT_EQ(build_sweep(options, 2).back().config(), "") << "defaults";

  setenv("COLLBENCH_RING_CTAS", "32", 1);
  const std::vector<Case> cases = build_sweep(options, 2);
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0].algo(), "nccl");
  EXPECT_EQ(cases[0].config(), "");
  EXPECT_EQ(cases[1].algo(), "ring");
  EXPECT_EQ(cases[1].config(), "ring_ctas=32");
  EXPECT_EQ(display_name(cases[1]), "all_reduce ring float sum 2r 1 KiB ring_ctas=32");

  setenv("COLLBENCH_RING_CTAS", "lots", 1);
  try {
    build_sweep(options, 2);
    ADD_FAILURE() << "a bad COLLBENCH_RING_CTAS should stop the plan";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("COLLBENCH_RING_CTAS=lots"), std::string::npos)
        << error.what();
  }
}

// Settings on the command line make choices of their own: each has its config and benchmark
// name; entries that make the same implementation with the same settings are one.
TEST_F(RingKnobEnvironment, AlgoSettingsOnTheCommandLine) {
  const std::vector<Case> cases = build_sweep(
      one_size("all_reduce", {"nccl", "ring", "ring:ctas=32", "nccl", "ring:ring_ctas=32", "all"},
               2, 1024),
      2);
  std::vector<std::string> configs;
  for (const Case& c : cases) configs.push_back(c.algo() + "|" + c.config());
  const std::vector<std::string> expected = {
      "nccl|",    "ring|",    "ring|ring_ctas=32", "ring_sendrecv|",
      "oneshot|", "twoshot|", "copy_engine|",      "copy_engine_ring|"};
  EXPECT_EQ(configs, expected);
  EXPECT_NE(benchmark_name(cases[1]), benchmark_name(cases[2]));
  EXPECT_NE(benchmark_name(cases[2]).find("ring:ring_ctas=32/"), std::string::npos)
      << benchmark_name(cases[2]);
  EXPECT_THROW(build_sweep(one_size("all_reduce", {"ring:ctas=0"}, 2, 1024), 2), UsageError);
  EXPECT_THROW(build_sweep(one_size("all_reduce", {"tree"}, 2, 1024), 2), UsageError);
  // A name known for all_reduce only is "not for this op" elsewhere, not an error.
  EXPECT_EQ(build_sweep(one_size("all_gather", {"nccl", "ring:ctas=8"}, 2, 1024), 2).size(), 1u);
}

// Loop timing is a curve of its own in the CSV (config), after the algorithm's knobs; graph
// replays are timed per replay either way and stay plain.
TEST_F(RingKnobEnvironment, RowsOfLoopTimingSayItInTheirConfig) {
  const Options options = one_size("all_reduce", {"ring"}, 2, 1024);
  setenv("COLLBENCH_RING_CTAS", "32", 1);
  const Case c = build_sweep(options, 2).front();
  unsetenv("COLLBENCH_RING_CTAS");
  MeasureSettings settings;
  const auto config = [&] { return make_report_row({}, settings, c, {}, {}).config; };
  EXPECT_EQ(config(), "ring_ctas=32");
  settings.timing = IterationTiming::loop;
  EXPECT_EQ(config(), "ring_ctas=32;timing=loop");
  settings.graph_replays = 10;
  EXPECT_EQ(config(), "ring_ctas=32");
}

// The NCCL axes: a cartesian product (algorithm, then protocol, then CTA limit varying fastest)
// for nccl only; hand-built algorithms run once on default communicators. Each combination is
// named in config, and so in the benchmark and display names.
TEST(SweepPlan, NcclAxesAreACartesianProductForNcclOnly) {
  Options options = one_size("all_reduce", {"nccl", "ring"}, 2, 1024);
  options.axes.nccl_algos = {"Ring", "Tree"};
  options.axes.nccl_protos = {"", "LL"};
  options.axes.nccl_max_ctas = {0, 8};
  const std::vector<Case> cases = build_sweep(options, 2);
  std::vector<std::string> configs;
  for (const Case& c : cases) configs.push_back(c.algo() + "|" + c.config());
  const std::vector<std::string> expected = {
      "nccl|nccl_algo=Ring",
      "nccl|nccl_algo=Ring;nccl_max_ctas=8",
      "nccl|nccl_algo=Ring;nccl_proto=LL",
      "nccl|nccl_algo=Ring;nccl_proto=LL;nccl_max_ctas=8",
      "nccl|nccl_algo=Tree",
      "nccl|nccl_algo=Tree;nccl_max_ctas=8",
      "nccl|nccl_algo=Tree;nccl_proto=LL",
      "nccl|nccl_algo=Tree;nccl_proto=LL;nccl_max_ctas=8",
      "ring|",
  };
  EXPECT_EQ(configs, expected);
  EXPECT_EQ(benchmark_name(cases[3]),
            "all_reduce/nccl:nccl_algo=Ring;nccl_proto=LL;nccl_max_ctas=8/ranks:2/float/sum/"
            "root:-1/out_of_place/"
            "bytes:1024");
  EXPECT_EQ(display_name(cases[0]), "all_reduce nccl float sum 2r 1 KiB nccl_algo=Ring");
  std::set<std::string> names;
  for (const Case& c : cases) names.insert(benchmark_name(c));
  EXPECT_EQ(names.size(), cases.size());
}

// --register: each GPU count's cases once per mode, mode after mode (so a mode's buffers are made
// once per count), each case saying its mode in config (after the algorithm's knobs), benchmark
// and display names; plain cases stay as before.
TEST_F(RingKnobEnvironment, RegistrationModesAreSweptPerRankCount) {
  Options options = one_size("all_reduce", {"nccl", "ring"}, 2, 1024);
  options.common.gpu_counts = "1,2";
  options.max_bytes = 2048;
  options.axes.registrations = {BufferRegistration::none, BufferRegistration::symmetric,
                                BufferRegistration::local};
  setenv("COLLBENCH_RING_CTAS", "32", 1);
  const std::vector<Case> cases = build_sweep(options, 2);
  // Per count: 3 modes x 2 algos x 2 sizes.
  ASSERT_EQ(cases.size(), 2u * 3 * 2 * 2);
  std::vector<std::string> order;
  for (const Case& c : cases) {
    const std::string step = std::to_string(c.ranks) + ":" + std::string(name_of(c.registration));
    if (order.empty() || order.back() != step) order.push_back(step);
  }
  EXPECT_EQ(order, (std::vector<std::string>{"1:none", "1:symmetric", "1:local", "2:none",
                                             "2:symmetric", "2:local"}));
  const Case& plain = cases.front();
  EXPECT_EQ(plain.config(), "");
  EXPECT_EQ(benchmark_name(plain),
            "all_reduce/nccl/ranks:1/float/sum/root:-1/out_of_place/bytes:1024");
  const Case& nccl_local = cases[cases.size() - 4];
  ASSERT_EQ(nccl_local.registration, BufferRegistration::local);
  ASSERT_EQ(nccl_local.algo(), "nccl");
  EXPECT_EQ(nccl_local.config(), "register=local");
  EXPECT_EQ(benchmark_name(nccl_local),
            "all_reduce/nccl:register=local/ranks:2/float/sum/root:-1/out_of_place/bytes:1024");
  EXPECT_EQ(display_name(nccl_local), "all_reduce nccl float sum 2r 1 KiB register=local");
  const Case& ring_symmetric = cases[cases.size() - 5];
  ASSERT_EQ(ring_symmetric.registration, BufferRegistration::symmetric);
  ASSERT_EQ(ring_symmetric.algo(), "ring");
  EXPECT_EQ(ring_symmetric.config(), "ring_ctas=32;register=symmetric");
  MeasureSettings settings;
  settings.timing = IterationTiming::loop;
  EXPECT_EQ(make_report_row({}, settings, ring_symmetric, {}, {}).config,
            "ring_ctas=32;register=symmetric;timing=loop");
  // Every name is unique: rows of different modes never mix.
  std::set<std::string> names;
  for (const Case& c : cases) names.insert(benchmark_name(c));
  EXPECT_EQ(names.size(), cases.size());
}

// Within a GPU count, the cases of one communicator combination are together (in the order the
// combinations first appear), so each combination's communicators are made once; GPU counts
// stay in order.
TEST(SweepPlan, CasesAreGroupedByGpuCountThenCommunicators) {
  Options options;
  options.ops = {"all_reduce", "all_gather"};
  options.algos = {"nccl", "ring"};
  options.common.gpu_counts = "2,4";
  options.axes.nccl_protos = {"LL", "Simple"};
  options.min_bytes = 1024;
  options.max_bytes = 4096;
  const std::vector<Case> cases = build_sweep(options, 4);
  std::vector<std::pair<int, std::string>> blocks;
  for (const Case& c : cases) {
    const std::pair<int, std::string> key{c.ranks, communicator_config(c.communicator, c.ranks)};
    if (blocks.empty() || blocks.back() != key) blocks.push_back(key);
  }
  const std::vector<std::pair<int, std::string>> expected = {
      {2, "nccl_proto=LL"}, {2, "nccl_proto=Simple"}, {2, ""},
      {4, "nccl_proto=LL"}, {4, "nccl_proto=Simple"}, {4, ""}};
  EXPECT_EQ(blocks, expected);
  // Inside a block the usual order: op, then size, then place.
  EXPECT_EQ(cases[0].spec->name, "all_reduce");
  EXPECT_EQ(cases[0].requested_bytes, 1024u);
  EXPECT_FALSE(cases[0].in_place);
  EXPECT_TRUE(cases[1].in_place);
  for (const Case& c : cases) {
    if (c.algo() == "ring") {
      EXPECT_EQ(c.config(), "");
    }
  }
}

// --split: every case carries the rule; counts, roots and busbw are per group (nccl-tests: each
// group is a communicator of its own); ranks stays the GPU count.
TEST(SweepPlan, SplitCasesArePerGroup) {
  Options options = one_size("all_gather", {"nccl"}, 4, 4096);
  options.split = parse_split_rule("MOD 2");
  const Case gather = build_sweep(options, 4).front();
  EXPECT_EQ(gather.ranks, 4);
  EXPECT_EQ(gather.group_ranks(), 2);
  EXPECT_EQ(gather.groups(), (std::vector<std::vector<int>>{{0, 2}, {1, 3}}));
  EXPECT_EQ(gather.counts.param, 4096u / 4 / 2);  // 1024 floats over a group of 2
  EXPECT_EQ(gather.config(), "split=MOD 2;groups=2");
  EXPECT_EQ(display_name(gather), "all_gather nccl float none 4r 4 KiB split=MOD 2;groups=2");

  options.ops = {"broadcast"};
  options.roots = "all";
  std::vector<int> roots;
  for (const Case& c : build_sweep(options, 4)) roots.push_back(c.root);
  EXPECT_EQ(roots, (std::vector<int>{0, 1}));  // ranks of a group of 2
  options.roots = "2";
  try {
    build_sweep(options, 4);
    ADD_FAILURE() << "root 2 in groups of 2 accepted";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what())
                  .find("--root 2 is outside the 2 ranks of each --split group of a 4-GPU case"),
              std::string::npos)
        << error.what();
  }

  // Hand-built algorithms are planned as skipped (no communicator is made for them) with the
  // rule in their config; the NCCL axes apply to nccl alone.
  Options mixed = one_size("all_reduce", {"nccl", "ring"}, 2, 1024);
  mixed.split = parse_split_rule("DIV 2");
  mixed.axes.nccl_algos = {"Ring"};
  const std::vector<Case> cases = build_sweep(mixed, 2);
  std::vector<std::string> configs;
  for (const Case& c : cases) configs.push_back(c.algo() + "|" + c.config());
  EXPECT_EQ(configs, (std::vector<std::string>{"nccl|nccl_algo=Ring;split=DIV 2;groups=1",
                                               "ring|split=DIV 2;groups=1"}));
  EXPECT_EQ(cases[0].skip_reason, "");
  EXPECT_EQ(cases[1].skip_reason,
            "--split runs NCCL only: ring is one clique of every rank of the GPU count");
}

// A split into groups of unequal size (MOD 2 on 3 GPUs) is planned as skipped, naming the
// groups; rank 0's group sets the counts.
TEST(SweepPlan, SplitIntoUnequalGroupsIsPlannedOnRankZerosGroup) {
  Options options = one_size("all_reduce", {"nccl"}, 3, 1024);
  options.split = parse_split_rule("MOD 2");
  const Case c = build_sweep(options, 3).front();
  EXPECT_EQ(c.groups(), (std::vector<std::vector<int>>{{0, 2}, {1}}));
  EXPECT_EQ(c.group_ranks(), 2);
  EXPECT_EQ(c.skip_reason,
            "--split 'MOD 2' makes groups of unequal size on 3 GPUs (0,2 | 1); sizes and busbw are "
            "per group");
}

// All axes together: GPU count, then communicator settings (each combination's communicators
// made once), then --register mode (each mode's buffers once per communicator), then op and the
// rest; config in the order algorithm, traffic, communicators, registration (timing last).
TEST_F(RingKnobEnvironment, CountThenCommunicatorsThenRegistrationThenOp) {
  Options options;
  options.ops = {"all_reduce", "alltoallv"};
  options.algos = {"nccl", "ring"};
  options.common.gpu_counts = "2,4";
  options.min_bytes = 1024;
  options.max_bytes = 2048;
  options.in_place = InPlaceMode::out_of_place;
  options.axes.nccl_protos = {"LL", "Simple"};
  options.axes.registrations = {BufferRegistration::local, BufferRegistration::none};
  options.a2av_spreads = {0.5};
  setenv("COLLBENCH_RING_CTAS", "32", 1);
  const std::vector<Case> cases = build_sweep(options, 4);
  std::vector<std::string> blocks;
  for (const Case& c : cases) {
    const std::string block = std::to_string(c.ranks) + "|" +
                              communicator_config(c.communicator, c.ranks) + "|" +
                              std::string(name_of(c.registration));
    if (blocks.empty() || blocks.back() != block) blocks.push_back(block);
  }
  EXPECT_EQ(blocks,
            (std::vector<std::string>{"2|nccl_proto=LL|local", "2|nccl_proto=LL|none",
                                      "2|nccl_proto=Simple|local", "2|nccl_proto=Simple|none",
                                      "2||local", "2||none", "4|nccl_proto=LL|local",
                                      "4|nccl_proto=LL|none", "4|nccl_proto=Simple|local",
                                      "4|nccl_proto=Simple|none", "4||local", "4||none"}));
  // Within a block: op, then algo, traffic and size.
  std::vector<std::string> first_block;
  for (const Case& c : cases) {
    if (c.ranks != 2 || c.communicator.nccl_proto != "LL" ||
        c.registration != BufferRegistration::local)
      continue;
    first_block.push_back(std::string(c.spec->name) + " " + std::to_string(c.requested_bytes) +
                          " " + c.config());
  }
  EXPECT_EQ(first_block, (std::vector<std::string>{
                             "all_reduce 1024 nccl_proto=LL;register=local",
                             "all_reduce 2048 nccl_proto=LL;register=local",
                             "alltoallv 1024 a2av_spread=0.5;nccl_proto=LL;register=local",
                             "alltoallv 2048 a2av_spread=0.5;nccl_proto=LL;register=local"}));
  const auto ring = std::find_if(cases.begin(), cases.end(), [](const Case& c) {
    return c.algo() == "ring" && c.registration == BufferRegistration::local;
  });
  ASSERT_NE(ring, cases.end());
  EXPECT_EQ(ring->config(), "ring_ctas=32;register=local");
  std::set<std::string> names;
  for (const Case& c : cases) names.insert(benchmark_name(c));
  EXPECT_EQ(names.size(), cases.size());

  // Every part at once, and timing=loop after them in the row.
  Options split = one_size("alltoallv", {"nccl"}, 4, 4096);
  split.axes.nccl_algos = {"Ring"};
  split.split = parse_split_rule("MOD 2");
  split.a2av_spreads = {0.5};
  split.axes.registrations = {BufferRegistration::symmetric};
  const Case all = build_sweep(split, 4).front();
  MeasureSettings settings;
  settings.timing = IterationTiming::loop;
  EXPECT_EQ(make_report_row({}, settings, all, {}, {}).config,
            "a2av_spread=0.5;nccl_algo=Ring;split=MOD 2;groups=2;register=symmetric;timing=loop");
}

// Under --split, alltoallv's traffic is one group's: a spread is worked out for the group's size,
// and a matrix must have the groups' size as its dimension.
TEST(SweepPlan, SplitAlltoallvTrafficIsPerGroup) {
  Options options = one_size("alltoallv", {"nccl"}, 4, 1000);
  options.a2av_spreads = {0.5};
  options.split = parse_split_rule("MOD 2");
  const Case split = build_sweep(options, 4).front();
  ASSERT_NE(split.traffic, nullptr);
  EXPECT_EQ(split.traffic->ranks(), 2);
  EXPECT_EQ(split.group_ranks(), 2);
  EXPECT_EQ(split.shape().nranks, 2);
  EXPECT_EQ(split.shape().traffic, split.traffic.get());
  EXPECT_TRUE(split.skip_reason.empty());
  // The same as alltoallv on 2 GPUs without a split (1000 B: 124 floats a peer at most).
  Options two_spread = one_size("alltoallv", {"nccl"}, 2, 1000);
  two_spread.a2av_spreads = {0.5};
  const Case plain = build_sweep(two_spread, 2).front();
  EXPECT_EQ(split.counts.param, plain.counts.param);
  EXPECT_EQ(split.counts.send, plain.counts.send);
  EXPECT_EQ(split.counts.recv, plain.counts.recv);
  EXPECT_EQ(split.bytes(), plain.bytes());
  EXPECT_EQ(split.counts.param, 124u);

  // A 2x2 matrix: fits the groups of MOD 2 on 4 GPUs, not the groups of 1 on 2 GPUs.
  options.common.gpu_counts = "2,4";
  options.a2av_matrix_path = "m.txt";
  options.a2av_matrix =
      std::make_shared<const TrafficMatrix>(parse_traffic_matrix("m.txt", "0 1K\n4K 256\n"));
  const std::vector<Case> cases = build_sweep(options, 4);
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0].ranks, 2);
  EXPECT_EQ(cases[0].skip_reason,
            "the traffic matrix m.txt is for 2 ranks, not 1 (each --split group's)");
  EXPECT_EQ(cases[1].ranks, 4);
  EXPECT_TRUE(cases[1].skip_reason.empty());
  EXPECT_EQ(cases[1].config(), "a2av_matrix=m.txt;split=MOD 2;groups=2");
  options.common.gpu_counts = "2";
  try {
    build_sweep(options, 4);
    ADD_FAILURE() << "a 2x2 matrix accepted for groups of 1";
  } catch (const UsageError& error) {
    EXPECT_STREQ(error.what(), "--a2av-matrix m.txt is for 2 ranks, and the --split groups have 1");
  }
}

TEST(SweepPlan, RegistrationModesCountTowardTheCaseLimit) {
  Options options = one_size("all_reduce", {"nccl"}, 2, 1024);
  options.repeats =
      static_cast<int>(kMaxCases / 2);  // one case per pass: at the limit with 2 modes
  options.axes.registrations = {BufferRegistration::none, BufferRegistration::local};
  EXPECT_EQ(build_sweep(options, 2).size(), kMaxCases);
  options.axes.registrations = all_buffer_registrations();
  try {
    build_sweep(options, 2);
    ADD_FAILURE() << "more than kMaxCases cases accepted";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("selects 1500000 cases"), std::string::npos)
        << error.what();
  }
}

// alltoallv sweeps each --a2av-spread over the sizes, and every row names its spread in config.
TEST(SweepPlan, AlltoallvSweepsSpreadsAndSizes) {
  Options options = one_size("alltoallv", {"nccl"}, 4, 1000);
  options.max_bytes = 1 << 20;
  options.step_bytes = (1 << 20) - 1000;  // 1000 B and 1 MiB
  options.a2av_spreads = {0.0, 0.5};
  options.in_place = InPlaceMode::both;  // alltoallv has no in-place variant
  const std::vector<Case> cases = build_sweep(options, 4);
  ASSERT_EQ(cases.size(), 4u);
  std::vector<std::string> configs;
  std::vector<std::size_t> bytes;
  for (const Case& c : cases) {
    configs.push_back(c.config());
    bytes.push_back(c.bytes());
    EXPECT_FALSE(c.in_place);
    ASSERT_NE(c.traffic, nullptr);
    EXPECT_EQ(c.traffic->ranks(), 4);
    EXPECT_TRUE(c.skip_reason.empty());
  }
  EXPECT_EQ(configs, (std::vector<std::string>{"a2av_spread=0", "a2av_spread=0", "a2av_spread=0.5",
                                               "a2av_spread=0.5"}));
  // nccl-tests' sizes (registry_test.cpp works them out): 1000 B -> 960 and 928; 1 MiB -> 1 MiB and
  // 1048560.
  EXPECT_EQ(bytes, (std::vector<std::size_t>{960, 1 << 20, 928, 1048560}));
  EXPECT_EQ(cases[2].counts.param, 60u);
  EXPECT_EQ(benchmark_name(cases[2]),
            "alltoallv/nccl:a2av_spread=0.5/ranks:4/float/none/root:-1/out_of_place/bytes:1000");
  EXPECT_EQ(display_name(cases[3]), "alltoallv nccl float none 4r 1023.98 KiB a2av_spread=0.5");
  // The default: spread 1, as nccl-tests'.
  const Case plain = build_sweep(one_size("alltoallv", {"nccl"}, 2, 1024), 2).front();
  EXPECT_EQ(plain.config(), "a2av_spread=1");
  // Other ops carry no traffic and say nothing of it.
  const Case other = build_sweep(one_size("alltoall", {"nccl"}, 2, 1024), 2).front();
  EXPECT_EQ(other.traffic, nullptr);
  EXPECT_EQ(other.config(), "");
}

// The traffic part follows the algorithm's settings and precedes what the row adds (timing=loop).
TEST(SweepPlan, AlltoallvConfigComposesWithTheRest) {
  const Case c = build_sweep(one_size("alltoallv", {"nccl"}, 2, 1 << 20), 2).front();
  MeasureSettings settings;
  settings.timing = IterationTiming::loop;
  const report::ReportRow row = make_report_row({}, settings, c, {}, {});
  EXPECT_EQ(row.config, "a2av_spread=1;timing=loop");
  EXPECT_EQ(row.op, "alltoallv");
  EXPECT_EQ(row.bytes, 1u << 20);
  EXPECT_EQ(row.count, 131072u);
  EXPECT_FALSE(row.in_place);
}

std::shared_ptr<const TrafficMatrix> matrix_of(const std::string& text) {
  return std::make_shared<const TrafficMatrix>(parse_traffic_matrix("m.txt", text));
}

// With a matrix, sizes do not apply: one case per dtype of the matrix's bytes; other rank counts
// get it as a skipped case, and other ops still sweep the sizes.
TEST(SweepPlan, AlltoallvMatrixIsOneCaseOfItsOwnBytes) {
  Options options = one_size("alltoallv", {"nccl"}, 2, 8);
  options.ops = {"alltoallv", "all_reduce"};
  options.max_bytes = 64;
  options.common.gpu_counts = "2,4";
  options.types = {DataType::float32, DataType::float64};
  options.a2av_matrix_path = "m.txt";
  options.a2av_matrix = matrix_of("0 1K\n4K 256\n");
  std::vector<const Case*> alltoallv;
  std::size_t all_reduce = 0;
  const std::vector<Case> cases = build_sweep(options, 4);
  for (const Case& c : cases) {
    if (c.spec->name == "alltoallv") alltoallv.push_back(&c);
    if (c.spec->name == "all_reduce") ++all_reduce;
  }
  EXPECT_EQ(all_reduce, 2u * 2 * 4);  // 2 rank counts x 2 types x 4 sizes
  ASSERT_EQ(alltoallv.size(), 4u);    // 2 rank counts x 2 types
  for (const Case* c : alltoallv) {
    EXPECT_EQ(c->config(), "a2av_matrix=m.txt");
    EXPECT_EQ(c->bytes(), 4352u);  // the busiest rank: rank 1 sends 4 KiB + 256 B
    EXPECT_EQ(c->requested_bytes, 4352u);
    EXPECT_EQ(c->counts.param, 0u);
    if (c->ranks == 2) {
      EXPECT_TRUE(c->skip_reason.empty());
    } else {
      EXPECT_EQ(c->skip_reason, "the traffic matrix m.txt is for 2 ranks, not 4");
    }
  }
  EXPECT_EQ(alltoallv[1]->counts.send, 4352u / 8);
  EXPECT_EQ(benchmark_name(*alltoallv[0]),
            "alltoallv/nccl:a2av_matrix=m.txt/ranks:2/float/none/root:-1/out_of_place/bytes:4352");
}

TEST(SweepPlan, AlltoallvMatrixThatFitsNoRankCountOrTypeIsAnError) {
  Options options = one_size("alltoallv", {"nccl"}, 4, 8);
  options.common.gpu_counts = "1,4";
  options.a2av_matrix_path = "m.txt";
  options.a2av_matrix = matrix_of("0 1K\n4K 256\n");
  try {
    build_sweep(options, 4);
    ADD_FAILURE() << "a 2x2 matrix accepted for 1 and 4 ranks";
  } catch (const UsageError& error) {
    EXPECT_STREQ(error.what(), "--a2av-matrix m.txt is for 2 ranks, and --gpus gives 1,4");
  }
  // Without alltoallv in the sweep the matrix is not used, and is no error.
  options.ops = {"all_reduce"};
  EXPECT_NO_THROW(build_sweep(options, 4));
  // Entries that are not whole elements of a swept type.
  options.ops = {"alltoallv"};
  options.common.gpu_counts = "2";
  options.types = {DataType::int8, DataType::float64};
  options.a2av_matrix = matrix_of("0 12\n4 0\n");
  try {
    build_sweep(options, 2);
    ADD_FAILURE() << "12 bytes accepted as 8-byte elements";
  } catch (const UsageError& error) {
    EXPECT_STREQ(
        error.what(),
        "traffic matrix m.txt: alltoallv traffic from rank 0 to rank 1 (12 bytes) is not a whole "
        "number of 8-byte elements");
  }
}

}  // namespace
}  // namespace collbench
