// CPU checks of the hand-built algorithms' host side: which cases they refuse and why, and their
// settings from the command line and the environment.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "algorithms/algorithm_registry.hpp"
#include "algorithms/handbuilt_algorithms.hpp"
#include "algorithms/handbuilt_copy_engine.hpp"
#include "algorithms/handbuilt_oneshot.hpp"
#include "algorithms/handbuilt_peer_group.hpp"
#include "algorithms/handbuilt_ring.hpp"
#include "algorithms/handbuilt_twoshot.hpp"
#include "core/algorithm.hpp"
#include "core/collective_registry.hpp"
#include "core/errors.hpp"
#include "twoshot/twoshot_all_reduce.hpp"

namespace collbench {
namespace {

CaseShape shape_of(std::string_view op, ReduceOp reduction, int nranks) {
  return {
      &find_collective(op), {1024, 1024, 1024}, DataType::float32, reduction, -1, nranks, false};
}

TEST(HandbuiltShapes, OnlyReducingAllReduceOnTwoOrMoreRanks) {
  EXPECT_EQ(handbuilt_shape_reason(shape_of("all_reduce", ReduceOp::sum, 2)), "");
  EXPECT_EQ(handbuilt_shape_reason(shape_of("all_reduce", ReduceOp::avg, 8)), "");
  EXPECT_NE(
      handbuilt_shape_reason(shape_of("all_gather", ReduceOp::none, 2)).find("all_reduce only"),
      std::string::npos);
  EXPECT_NE(handbuilt_shape_reason(shape_of("all_reduce", ReduceOp::none, 2)), "");
  EXPECT_NE(handbuilt_shape_reason(shape_of("all_reduce", ReduceOp::sum, 1)).find("at least 2"),
            std::string::npos);
}

TEST(HandbuiltShapes, RingSendrecvNeedsNoPeerAccess) {
  // No GPU is touched: ring_sendrecv only needs NCCL and its own scratch.
  auto algorithm = make_handbuilt_algorithm("ring_sendrecv", {});
  EXPECT_EQ(algorithm->name(), "ring_sendrecv");
  EXPECT_EQ(algorithm->unsupported_reason(shape_of("all_reduce", ReduceOp::prod, 16)), "");
  EXPECT_NE(algorithm->unsupported_reason(shape_of("broadcast", ReduceOp::none, 4)), "");
}

// Rounds tile the buffer exactly, in whole units, none over the cap and none empty, and as few as
// the cap allows; a buffer just over one round splits in halves, not one round plus a sliver.
TEST(CopyEngineRounds, FewestEqualRoundsTileTheBuffer) {
  for (std::uint64_t unit : {8u, 16u, 64u}) {
    for (std::uint64_t largest : {unit, 5 * unit, 1000 * unit + 3, std::uint64_t{4} << 20}) {
      for (std::uint64_t count : {std::uint64_t{1}, unit - 1, unit, unit + 1, 7 * unit + 5, largest,
                                  largest + 1, 3 * largest - 1, std::uint64_t{16781312}}) {
        const RoundSplit split = equal_rounds(count, largest, unit);
        const std::uint64_t cap = std::max(unit, largest / unit * unit);
        SCOPED_TRACE(::testing::Message() << count << " in rounds of <= " << cap);
        EXPECT_EQ(split.elements % unit, 0u);
        EXPECT_LE(split.elements, cap);
        EXPECT_EQ(split.rounds, static_cast<int>((count + cap - 1) / cap));
        EXPECT_GE(split.elements * split.rounds, count);
        EXPECT_LT(split.elements * (split.rounds - 1), count);  // the last round is not empty
      }
    }
  }
  const RoundSplit layer = equal_rounds(16781312, 16777216, 16);  // 32 MiB + bias, bfloat16
  EXPECT_EQ(layer.rounds, 2);
  EXPECT_EQ(layer.elements, 8390656u);
  EXPECT_EQ(equal_rounds(0, 1024, 16).rounds, 0);
}

TEST(HandbuiltShapes, UnknownNameIsAUsageError) {
  EXPECT_THROW(make_handbuilt_algorithm("tree", {}), UsageError);
}

TEST(HandbuiltShapes, EnumsMirrorTheKernels) {
  EXPECT_EQ(element_type_of(DataType::bfloat16), kernels::ElementType::bfloat16);
  EXPECT_EQ(element_type_of(DataType::int64), kernels::ElementType::int64);
  EXPECT_EQ(reduction_of(ReduceOp::avg), kernels::Reduction::avg);
  EXPECT_EQ(reduction_of(ReduceOp::min), kernels::Reduction::min);
}

// The settings of hand-built algorithm `name` as --algo `text` and the environment `variables`
// resolve them (no process environment is read).
SettingValues settings_of(const std::string& text,
                          std::map<std::string, std::string> variables = {}) {
  auto environment = [variables](const char* name) -> const char* {
    auto found = variables.find(name);
    return found == variables.end() ? nullptr : found->second.c_str();
  };
  return resolve_algorithm(text, environment).settings;
}

// The tuning `settings` make from --algo `text` and the environment `variables`.
template <typename Tuning>
Tuning tuning_of(const TuningSettings<Tuning>& settings, const std::string& text,
                 std::map<std::string, std::string> variables = {}) {
  return tuning_from(settings, settings_of(text, std::move(variables)));
}

// Resolves `text` with `variables` and applies the values to its algorithm's tuning, as the
// algorithm's maker does (validated).
void resolve_tuning(const std::string& text, std::map<std::string, std::string> variables) {
  const SettingValues values = settings_of(text, std::move(variables));
  const std::string_view name = algorithm_name_of(text);
  if (name == "ring") tuning_from(ring_settings(), values);
  if (name == "oneshot") tuning_from(oneshot_settings(), values);
  if (name == "twoshot") tuning_from(twoshot_settings(), values);
  if (name == "copy_engine" || name == "copy_engine_ring") {
    tuning_from(copy_engine_settings(), values);
  }
}

// Resolving `text` with `variables` refuses with a UsageError whose message names `setting`.
void expect_refused(const std::string& text, std::map<std::string, std::string> variables,
                    const std::string& setting) {
  try {
    resolve_tuning(text, std::move(variables));
    ADD_FAILURE() << text << ": expected a UsageError naming " << setting;
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find(setting), std::string::npos) << error.what();
  }
}

// Each setting's default, as resolved, is its tuning's default: nothing shows in config.
TEST(HandbuiltSettings, DefaultsAreTheTuningDefaults) {
  for (const HandbuiltDescriptor* descriptor : handbuilt_descriptors()) {
    EXPECT_EQ(settings_of(std::string(descriptor->name)).config(), "") << descriptor->name;
  }
  const RingTuning ring = tuning_of(ring_settings(), "ring");
  EXPECT_EQ(ring.protocol, RingTuning{}.protocol);
  EXPECT_EQ(ring.max_ctas, RingTuning{}.max_ctas);
  EXPECT_EQ(ring.large_ctas, RingTuning{}.large_ctas);
  EXPECT_EQ(ring.large_bytes, RingTuning{}.large_bytes);
  EXPECT_EQ(ring.min_part_bytes, RingTuning{}.min_part_bytes);
  EXPECT_EQ(ring.slice_bytes, RingTuning{}.slice_bytes);
  EXPECT_EQ(ring.slots, RingTuning{}.slots);
  EXPECT_EQ(ring.launch, RingTuning{}.launch);
  EXPECT_EQ(ring.peer.timeout_s, PeerTuning{}.timeout_s);
  const TwoshotTuning twoshot = tuning_of(twoshot_settings(), "twoshot");
  EXPECT_EQ(twoshot.ctas, TwoshotTuning{}.ctas);
  EXPECT_EQ(twoshot.slice_bytes, TwoshotTuning{}.slice_bytes);
  EXPECT_EQ(twoshot.min_part_bytes, TwoshotTuning{}.min_part_bytes);
  EXPECT_EQ(twoshot.launch, TwoshotTuning{}.launch);
  const OneshotTuning oneshot = tuning_of(oneshot_settings(), "oneshot");
  EXPECT_EQ(oneshot.programmatic, OneshotTuning{}.programmatic);
  EXPECT_EQ(oneshot.launch, OneshotTuning{}.launch);
  const CopyEngineTuning copy_engine = tuning_of(copy_engine_settings(), "copy_engine_ring");
  EXPECT_EQ(copy_engine.round_bytes, CopyEngineTuning{}.round_bytes);
  EXPECT_EQ(copy_engine.reduce_blocks, CopyEngineTuning{}.reduce_blocks);
  EXPECT_EQ(copy_engine.peer.timeout_s, PeerTuning{}.timeout_s);
}

// The defaults are the measured best (kernels/README.md): a change is a new measurement, not a
// side effect.
TEST(HandbuiltSettings, DefaultsAreTheMeasuredBest) {
  const RingTuning ring;
  EXPECT_EQ(ring.protocol, kernels::RingProtocol::push);
  EXPECT_EQ(ring.max_ctas, 64);
  EXPECT_EQ(ring.large_ctas, 128);
  EXPECT_EQ(ring.large_bytes, std::size_t{512} << 20);
  EXPECT_EQ(ring.min_part_bytes, std::size_t{32} << 10);
  EXPECT_EQ(ring.slice_bytes, std::size_t{512} << 10);
  EXPECT_EQ(ring.slots, 8);
  const TwoshotTuning twoshot;
  EXPECT_EQ(twoshot.ctas, 64);
  EXPECT_EQ(twoshot.slice_bytes, std::size_t{64} << 10);
  EXPECT_EQ(twoshot.min_part_bytes, std::size_t{32} << 10);
  EXPECT_EQ(OneshotTuning{}.programmatic, ProgrammaticLaunch::by_size);
  EXPECT_EQ(CopyEngineTuning{}.round_bytes, std::size_t{64} << 20);
  EXPECT_EQ(CopyEngineTuning{}.reduce_blocks, kernels::kReduceSourcesMaxBlocks);
  for (PeerKernelLaunch launch : {ring.launch, twoshot.launch, OneshotTuning{}.launch}) {
    EXPECT_EQ(launch, PeerKernelLaunch::graph);
  }
  EXPECT_EQ(PeerTuning{}.timeout_s, 30);
  EXPECT_FALSE(PeerTuning{}.allow_shared_gpus);
}

// The command line takes a setting by its short name or its full one; the environment variable
// is the full name in capitals; the command line wins over the environment.
TEST(HandbuiltSettings, CommandLineOverEnvironmentOverDefault) {
  EXPECT_EQ(tuning_of(ring_settings(), "ring:ctas=16").max_ctas, 16);
  EXPECT_EQ(tuning_of(ring_settings(), "ring:ring_ctas=16").max_ctas, 16);
  EXPECT_EQ(tuning_of(ring_settings(), "ring", {{"COLLBENCH_RING_CTAS", "32"}}).max_ctas, 32);
  EXPECT_EQ(tuning_of(ring_settings(), "ring:ctas=16", {{"COLLBENCH_RING_CTAS", "32"}}).max_ctas,
            16);
  const RingTuning ring =
      tuning_of(ring_settings(), "ring:protocol=pull:slots=16:slice_bytes=128K:peer_timeout_s=0");
  EXPECT_EQ(ring.protocol, kernels::RingProtocol::pull);
  EXPECT_EQ(ring.slots, 16);
  EXPECT_EQ(ring.slice_bytes, 131072u);
  EXPECT_EQ(ring.peer.timeout_s, 0.0);
  const TwoshotTuning twoshot = tuning_of(twoshot_settings(), "twoshot:ctas=32:slice_bytes=32768");
  EXPECT_EQ(twoshot.ctas, 32);
  EXPECT_EQ(twoshot.slice_bytes, 32768u);
  EXPECT_EQ(tuning_of(copy_engine_settings(), "copy_engine:reduce_blocks=64").reduce_blocks, 64);
  EXPECT_EQ(
      tuning_of(copy_engine_settings(), "copy_engine_ring", {{"COLLBENCH_CE_ROUND_BYTES", "32M"}})
          .round_bytes,
      std::size_t{32} << 20);
  EXPECT_EQ(tuning_of(oneshot_settings(), "oneshot:pdl=on").programmatic, ProgrammaticLaunch::on);
  EXPECT_EQ(
      tuning_of(oneshot_settings(), "oneshot", {{"COLLBENCH_ONESHOT_PDL", "off"}}).programmatic,
      ProgrammaticLaunch::off);
  EXPECT_EQ(tuning_of(oneshot_settings(), "oneshot:peer_launch=direct").launch,
            PeerKernelLaunch::direct);
}

// Each algorithm's settings set its own tuning: twoshot's min_part_bytes is twoshot's, and the
// ring's does not reach it.
TEST(HandbuiltSettings, EachAlgorithmReadsOnlyItsOwnSettings) {
  EXPECT_EQ(tuning_of(twoshot_settings(), "twoshot:min_part_bytes=4096").min_part_bytes, 4096u);
  EXPECT_EQ(tuning_of(twoshot_settings(), "twoshot", {{"COLLBENCH_RING_MIN_PART_BYTES", "4096"}})
                .min_part_bytes,
            TwoshotTuning{}.min_part_bytes);
  EXPECT_EQ(tuning_of(ring_settings(), "ring", {{"COLLBENCH_TWOSHOT_MIN_PART_BYTES", "4096"}})
                .min_part_bytes,
            RingTuning{}.min_part_bytes);
  EXPECT_EQ(tuning_of(ring_settings(), "ring", {{"COLLBENCH_TWOSHOT_CTAS", "8"}}).max_ctas,
            RingTuning{}.max_ctas);
}

// Only what changes a measurement, in declaration order, with the names the CSV has always used.
TEST(HandbuiltSettings, ConfigNamesTheChangedSettings) {
  EXPECT_EQ(settings_of("ring:peer_timeout_s=0").config(), "");  // changes no measurement
  EXPECT_EQ(
      settings_of("ring:slice_bytes=1M:ctas=32:protocol=pull:large_ctas=96:min_part_bytes=4096:"
                  "peer_launch=direct")
          .config(),
      "ring_protocol=pull;ring_ctas=32;ring_large_ctas=96;ring_min_part_bytes=4096;"
      "ring_slice_bytes=1048576;peer_launch=direct");
  EXPECT_EQ(settings_of("ring:slots=4").config(), "ring_slots=4");
  EXPECT_EQ(settings_of("oneshot:pdl=off:peer_launch=direct").config(),
            "oneshot_pdl=off;peer_launch=direct");
  EXPECT_EQ(settings_of("copy_engine:round_bytes=32M").config(), "ce_round_bytes=33554432");
  EXPECT_EQ(settings_of("copy_engine", {{"COLLBENCH_CE_REDUCE_BLOCKS", "64"}}).config(),
            "ce_reduce_blocks=64");
  EXPECT_EQ(settings_of("twoshot:ctas=32:slice_bytes=1M:min_part_bytes=4096").config(),
            "twoshot_ctas=32;twoshot_slice_bytes=1048576;twoshot_min_part_bytes=4096");
  EXPECT_EQ(settings_of("nccl").config(), "");
}

TEST(HandbuiltSettings, BadValuesNameThemselves) {
  expect_refused("ring:ctas=many", {}, "ring_ctas=many");
  expect_refused("ring:ctas=0", {}, "--algo ring: ring_ctas=0 is not 1..128");
  expect_refused("ring:ctas=129", {}, "ring_ctas=129");  // more than the flag slots
  expect_refused("ring", {{"COLLBENCH_RING_CTAS", "6.5"}}, "COLLBENCH_RING_CTAS");
  expect_refused("ring", {{"COLLBENCH_RING_LARGE_CTAS", "0"}},
                 "COLLBENCH_RING_LARGE_CTAS=0 is not 1..128");
  expect_refused("ring:protocol=both", {}, "ring_protocol=both");
  expect_refused("copy_engine:reduce_blocks=0", {}, "ce_reduce_blocks=0");
  expect_refused("twoshot", {{"COLLBENCH_TWOSHOT_CTAS", "0"}}, "COLLBENCH_TWOSHOT_CTAS=0");
  expect_refused("oneshot:pdl=yes", {}, "oneshot_pdl=yes");
  expect_refused("oneshot:peer_launch=stream", {}, "peer_launch=stream");
  expect_refused("ring:peer_timeout_s=-1", {}, "peer_timeout_s=-1");
  for (const char* bad : {"1", "3", "128"})
    expect_refused(std::string("ring:slots=") + bad, {}, "ring_slots");
  expect_refused("ring:tree=1", {}, "no setting 'tree'");
  expect_refused("ring_sendrecv:ctas=8", {}, "it has: none");
  expect_refused("ring:ctas=8:ctas=16", {}, "given twice");
  expect_refused("ring:ctas", {}, "'ctas' is not SETTING=VALUE");
  expect_refused("tree", {}, "unknown algorithm 'tree'");
  // Explicit tunings (tests) are checked too, each against its own rules.
  RingTuning ring;
  ring.slots = 6;
  EXPECT_THROW(ring.validate(), UsageError);
  TwoshotTuning twoshot;
  twoshot.ctas = 0;
  EXPECT_THROW(twoshot.validate(), UsageError);
  CopyEngineTuning copy_engine;
  copy_engine.reduce_blocks = 0;
  EXPECT_THROW(copy_engine.validate(), UsageError);
}

// Every declared setting shows in --help with its environment variable and its default.
TEST(HandbuiltSettings, HelpListsEverySetting) {
  const std::string help = algorithm_settings_help();
  for (const HandbuiltDescriptor* descriptor : handbuilt_descriptors()) {
    EXPECT_NE(help.find(std::string(descriptor->name)), std::string::npos);
    for (const SettingSpec& spec : descriptor->settings) {
      EXPECT_NE(help.find(environment_name(spec)), std::string::npos) << spec.name;
    }
  }
  EXPECT_NE(help.find("ctas=1..128, default 64 (COLLBENCH_RING_CTAS)"), std::string::npos) << help;
  EXPECT_NE(help.find("slice_bytes=16..1G bytes, default 512K (COLLBENCH_RING_SLICE_BYTES)"),
            std::string::npos)
      << help;
}

// By size, a kernel is launched programmatically once it sends 96 KiB to its peers.
TEST(OneshotProgrammaticLaunch, BySizeCountsTheBytesSentToPeers) {
  const auto by_size = [](int nranks, std::size_t bytes) {
    return oneshot_is_programmatic(ProgrammaticLaunch::by_size, nranks, bytes);
  };
  EXPECT_FALSE(by_size(4, 16 << 10));  // 48 KiB to peers
  EXPECT_TRUE(by_size(4, 32 << 10));   // 96 KiB
  EXPECT_FALSE(by_size(3, (48 << 10) - 4));
  EXPECT_TRUE(by_size(3, 48 << 10));
  EXPECT_FALSE(by_size(2, 64 << 10));  // the largest low-latency buffer
  EXPECT_TRUE(by_size(2, 96 << 10));
  EXPECT_FALSE(by_size(1, std::size_t{1} << 30));  // nothing to send
  for (std::size_t bytes : {std::size_t{8}, std::size_t{1} << 30}) {
    EXPECT_TRUE(oneshot_is_programmatic(ProgrammaticLaunch::on, 4, bytes));
    EXPECT_FALSE(oneshot_is_programmatic(ProgrammaticLaunch::off, 4, bytes));
  }
}

// Up to large_bytes the ring takes at most max_ctas CTAs, from there large_ctas; never more than
// the SMs, and never so many that a CTA gets under min_part_bytes.
TEST(RingGeometry, LargeBuffersTakeMoreCtas) {
  const RingTuning tuning;
  auto parts = [&tuning](std::size_t bytes, int nranks, int sm_count) {
    CaseShape shape{};
    shape.counts.param = bytes / 4;
    shape.type = DataType::float32;
    shape.nranks = nranks;
    return ring_geometry(shape, tuning, sm_count).parts;
  };
  EXPECT_EQ(parts(tuning.large_bytes - 1024, 4, 132), tuning.max_ctas);
  EXPECT_EQ(parts(tuning.large_bytes, 4, 132), tuning.large_ctas);
  EXPECT_EQ(parts(std::size_t{8} << 30, 3, 132), tuning.large_ctas);
  EXPECT_EQ(parts(std::size_t{8} << 30, 4, 100), 100);  // one CTA per SM at most
  EXPECT_EQ(parts(4 * 3 * tuning.min_part_bytes, 4, 132), 3);
  EXPECT_EQ(parts(16, 2, 132), 1);
}

// twoshot: at most `ctas` CTAs (and kTwoshotMaxParts), each piece of a chunk per slice about
// slice_bytes.
TEST(TwoshotGeometry, CtasAndSlicesFollowTheKnobs) {
  TwoshotTuning tuning;
  auto geometry = [&tuning](std::size_t bytes, int nranks) {
    CaseShape shape{};
    shape.counts.param = bytes / 2;
    shape.type = DataType::bfloat16;
    shape.nranks = nranks;
    return twoshot_geometry(shape, tuning, 132);
  };
  // A 32 MiB bucket on 4 GPUs: 8 MiB chunks, 128 KiB per CTA, two 64 KiB slices.
  EXPECT_EQ(geometry(32u << 20, 4).parts, tuning.ctas);
  EXPECT_EQ(geometry(32u << 20, 4).slices, 2);
  EXPECT_EQ(geometry(32u << 20, 4).line_elements, 8);
  tuning.ctas = 500;  // above the flag rows
  EXPECT_EQ(geometry(std::size_t{1} << 30, 2).parts, 128);
  tuning.ctas = 16;
  tuning.slice_bytes = 1 << 20;
  EXPECT_EQ(geometry(std::size_t{1} << 30, 4).parts, 16);
  EXPECT_EQ(geometry(std::size_t{1} << 30, 4).slices, 16);  // 256 MiB chunk / 16 CTAs / 1 MiB
  EXPECT_EQ(geometry(16, 2).parts, 1);
  EXPECT_EQ(geometry(16, 2).slices, 1);
}

// Every (source, part, slot) of an owner's staging is its own run of lines, inside the staging,
// large enough for any piece; each source other than the owner has one index.
TEST(TwoshotStaging, SlotsTileTheStagingWithoutOverlap) {
  for (const int nranks : {2, 3, 4, 8}) {
    for (const std::uint64_t count :
         {std::uint64_t{1}, std::uint64_t{1021}, std::uint64_t{1} << 20}) {
      const kernels::RingGeometry g{count, nranks, 3, 5, 4};
      const std::uint64_t slot_elements = kernels::ring_max_piece_lines(g) * g.line_elements;
      std::vector<std::uint64_t> starts;
      for (int source = 0; source < nranks - 1; ++source) {
        for (int part = 0; part < g.parts; ++part) {
          for (int slot = 0; slot < kernels::kTwoshotSlots; ++slot) {
            starts.push_back(kernels::twoshot_slot_offset(g, source, part, slot));
          }
        }
      }
      std::sort(starts.begin(), starts.end());
      for (std::size_t i = 1; i < starts.size(); ++i) {
        EXPECT_GE(starts[i], starts[i - 1] + slot_elements) << nranks << " ranks, " << count;
      }
      EXPECT_LE((starts.back() + slot_elements) * 4, kernels::twoshot_staging_bytes(g));
      for (int chunk = 0; chunk < nranks; ++chunk) {
        for (int slice = 0; slice < g.slices; ++slice) {
          for (int part = 0; part < g.parts; ++part) {
            const kernels::ElementRange piece = kernels::ring_piece(g, chunk, slice, part);
            EXPECT_LE(piece.end - piece.begin, slot_elements);
          }
        }
      }
      for (int owner = 0; owner < nranks; ++owner) {
        std::vector<int> seen(nranks - 1, 0);
        for (int source = 0; source < nranks; ++source) {
          if (source == owner) continue;
          const int index = kernels::twoshot_source_index(source, owner, nranks);
          ASSERT_GE(index, 0);
          ASSERT_LT(index, nranks - 1);
          ++seen[index];
        }
        EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), nranks - 1);
      }
    }
  }
}

}  // namespace
}  // namespace collbench
