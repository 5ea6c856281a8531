// CPU checks of the hand-built algorithms' host side: which cases they refuse and why, and their
// settings from the command line and the environment.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "core/algorithm.hpp"
#include "core/collective_registry.hpp"
#include "core/errors.hpp"
#include "algorithms/handbuilt_algorithms.hpp"
#include "algorithms/handbuilt_peer_group.hpp"
#include "twoshot/twoshot_all_reduce.hpp"
#include "algorithms/algorithm_registry.hpp"

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
  auto algorithm = make_handbuilt_algorithm("ring_sendrecv", {}, HandbuiltTuning{});
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
  EXPECT_THROW(make_handbuilt_algorithm("tree", {}, HandbuiltTuning{}), UsageError);
}

TEST(HandbuiltShapes, EnumsMirrorTheKernels) {
  EXPECT_EQ(element_type_of(DataType::bfloat16), kernels::ElementType::bfloat16);
  EXPECT_EQ(element_type_of(DataType::int64), kernels::ElementType::int64);
  EXPECT_EQ(reduction_of(ReduceOp::avg), kernels::Reduction::avg);
  EXPECT_EQ(reduction_of(ReduceOp::min), kernels::Reduction::min);
}

// The settings of hand-built algorithm `name` as --algo `text` and the environment `variables`
// resolve them (no process environment is read).
SettingValues settings_of(const std::string& text, std::map<std::string, std::string> variables = {}) {
  auto environment = [variables](const char* name) -> const char* {
    auto found = variables.find(name);
    return found == variables.end() ? nullptr : found->second.c_str();
  };
  return resolve_algorithm(text, environment).settings;
}

HandbuiltTuning tuning_of(const std::string& text, std::map<std::string, std::string> variables = {}) {
  const AlgorithmRequest request = parse_algorithm_request(text);
  return tuning_from(find_handbuilt(request.name), settings_of(text, std::move(variables)));
}

// Resolving `text` with `variables` refuses with a UsageError whose message names `setting`.
void expect_refused(const std::string& text, std::map<std::string, std::string> variables,
                    const std::string& setting) {
  try {
    tuning_of(text, std::move(variables));
    ADD_FAILURE() << text << ": expected a UsageError naming " << setting;
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find(setting), std::string::npos) << error.what();
  }
}

TEST(HandbuiltSettings, DefaultsAreTheTuningDefaults) {
  for (const HandbuiltDescriptor* descriptor : handbuilt_descriptors()) {
    const HandbuiltTuning tuning = tuning_of(std::string(descriptor->name));
    EXPECT_EQ(tuning.ring_max_ctas, HandbuiltTuning{}.ring_max_ctas) << descriptor->name;
    EXPECT_EQ(tuning.peer_timeout_s, HandbuiltTuning{}.peer_timeout_s) << descriptor->name;
    EXPECT_EQ(tuning.ring_protocol, kernels::RingProtocol::push) << descriptor->name;
    EXPECT_EQ(tuning.peer_kernel_launch, PeerKernelLaunch::graph) << descriptor->name;
    EXPECT_EQ(tuning.oneshot_programmatic, ProgrammaticLaunch::by_size) << descriptor->name;
    EXPECT_EQ(tuning.copy_engine_reduce_blocks, kernels::kReduceSourcesMaxBlocks) << descriptor->name;
    EXPECT_EQ(settings_of(std::string(descriptor->name)).config(), "") << descriptor->name;
  }
}

// The command line takes a setting by its short name or its full one; the environment variable
// is the full name in capitals; the command line wins over the environment.
TEST(HandbuiltSettings, CommandLineOverEnvironmentOverDefault) {
  EXPECT_EQ(tuning_of("ring:ctas=16").ring_max_ctas, 16);
  EXPECT_EQ(tuning_of("ring:ring_ctas=16").ring_max_ctas, 16);
  EXPECT_EQ(tuning_of("ring", {{"COLLBENCH_RING_CTAS", "32"}}).ring_max_ctas, 32);
  EXPECT_EQ(tuning_of("ring:ctas=16", {{"COLLBENCH_RING_CTAS", "32"}}).ring_max_ctas, 16);
  const HandbuiltTuning ring = tuning_of("ring:protocol=pull:slots=16:slice_bytes=128K:peer_timeout_s=0");
  EXPECT_EQ(ring.ring_protocol, kernels::RingProtocol::pull);
  EXPECT_EQ(ring.ring_slots, 16);
  EXPECT_EQ(ring.ring_slice_bytes, 131072u);
  EXPECT_EQ(ring.peer_timeout_s, 0.0);
  const HandbuiltTuning twoshot = tuning_of("twoshot:ctas=32:slice_bytes=32768");
  EXPECT_EQ(twoshot.twoshot_ctas, 32);
  EXPECT_EQ(twoshot.twoshot_slice_bytes, 32768u);
  EXPECT_EQ(tuning_of("copy_engine:reduce_blocks=64").copy_engine_reduce_blocks, 64);
  EXPECT_EQ(tuning_of("copy_engine_ring", {{"COLLBENCH_CE_ROUND_BYTES", "32M"}}).copy_engine_round_bytes,
            std::size_t{32} << 20);
  EXPECT_EQ(tuning_of("oneshot:pdl=on").oneshot_programmatic, ProgrammaticLaunch::on);
  EXPECT_EQ(tuning_of("oneshot", {{"COLLBENCH_ONESHOT_PDL", "off"}}).oneshot_programmatic,
            ProgrammaticLaunch::off);
  EXPECT_EQ(tuning_of("oneshot:peer_launch=direct").peer_kernel_launch, PeerKernelLaunch::direct);
  // Each algorithm reads only its own settings: the ring's CTAs do not reach twoshot.
  EXPECT_EQ(tuning_of("twoshot", {{"COLLBENCH_RING_CTAS", "8"}}).ring_max_ctas, HandbuiltTuning{}.ring_max_ctas);
}

// Only what changes a measurement, in declaration order, with the names the CSV has always used.
TEST(HandbuiltSettings, ConfigNamesTheChangedSettings) {
  EXPECT_EQ(settings_of("ring:peer_timeout_s=0").config(), "");  // changes no measurement
  EXPECT_EQ(settings_of("ring:slice_bytes=1M:ctas=32:protocol=pull:large_ctas=96:min_part_bytes=4096:"
                        "peer_launch=direct")
                .config(),
            "ring_protocol=pull;ring_ctas=32;ring_large_ctas=96;ring_min_part_bytes=4096;"
            "ring_slice_bytes=1048576;peer_launch=direct");
  EXPECT_EQ(settings_of("ring:slots=4").config(), "ring_slots=4");
  EXPECT_EQ(settings_of("oneshot:pdl=off:peer_launch=direct").config(), "oneshot_pdl=off;peer_launch=direct");
  EXPECT_EQ(settings_of("copy_engine:round_bytes=32M").config(), "ce_round_bytes=33554432");
  EXPECT_EQ(settings_of("copy_engine", {{"COLLBENCH_CE_REDUCE_BLOCKS", "64"}}).config(), "ce_reduce_blocks=64");
  EXPECT_EQ(settings_of("twoshot:ctas=32:slice_bytes=1M:min_part_bytes=4096").config(),
            "twoshot_ctas=32;twoshot_slice_bytes=1048576;twoshot_min_part_bytes=4096");
  EXPECT_EQ(settings_of("nccl").config(), "");
}

TEST(HandbuiltSettings, BadValuesNameThemselves) {
  expect_refused("ring:ctas=many", {}, "ring_ctas=many");
  expect_refused("ring:ctas=0", {}, "--algo ring: ring_ctas=0 is not 1..128");
  expect_refused("ring:ctas=129", {}, "ring_ctas=129");  // more than the flag slots
  expect_refused("ring", {{"COLLBENCH_RING_CTAS", "6.5"}}, "COLLBENCH_RING_CTAS");
  expect_refused("ring", {{"COLLBENCH_RING_LARGE_CTAS", "0"}}, "COLLBENCH_RING_LARGE_CTAS=0 is not 1..128");
  expect_refused("ring:protocol=both", {}, "ring_protocol=both");
  expect_refused("copy_engine:reduce_blocks=0", {}, "ce_reduce_blocks=0");
  expect_refused("twoshot", {{"COLLBENCH_TWOSHOT_CTAS", "0"}}, "COLLBENCH_TWOSHOT_CTAS=0");
  expect_refused("oneshot:pdl=yes", {}, "oneshot_pdl=yes");
  expect_refused("oneshot:peer_launch=stream", {}, "peer_launch=stream");
  expect_refused("ring:peer_timeout_s=-1", {}, "peer_timeout_s=-1");
  for (const char* bad : {"1", "3", "128"}) expect_refused(std::string("ring:slots=") + bad, {}, "ring_slots");
  expect_refused("ring:tree=1", {}, "no setting 'tree'");
  expect_refused("ring_sendrecv:ctas=8", {}, "it has: none");
  expect_refused("ring:ctas=8:ctas=16", {}, "given twice");
  expect_refused("ring:ctas", {}, "'ctas' is not SETTING=VALUE");
  expect_refused("tree", {}, "unknown algorithm 'tree'");
  HandbuiltTuning tuning;
  tuning.ring_slots = 6;  // explicit tuning is checked too
  EXPECT_THROW(tuning.validate(), UsageError);
}

// Every declared setting shows in --help with its environment variable and its default.
TEST(HandbuiltSettings, HelpListsEverySetting) {
  const std::string help = algorithm_settings_help();
  for (const HandbuiltDescriptor* descriptor : handbuilt_descriptors()) {
    EXPECT_NE(help.find(std::string(descriptor->name)), std::string::npos);
    for (const TuningSetting& setting : descriptor->settings) {
      EXPECT_NE(help.find(environment_name(setting.spec)), std::string::npos) << setting.spec.name;
    }
  }
  EXPECT_NE(help.find("ctas=1..128, default 64 (COLLBENCH_RING_CTAS)"), std::string::npos) << help;
  EXPECT_NE(help.find("slice_bytes=16..1G bytes, default 512K (COLLBENCH_RING_SLICE_BYTES)"), std::string::npos)
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

// Up to ring_large_bytes the ring takes at most ring_max_ctas CTAs, from there ring_large_ctas;
// never more than the SMs, and never so many that a CTA gets under ring_min_part_bytes.
TEST(RingGeometry, LargeBuffersTakeMoreCtas) {
  const HandbuiltTuning tuning;
  auto parts = [&tuning](std::size_t bytes, int nranks, int sm_count) {
    CaseShape shape{};
    shape.counts.param = bytes / 4;
    shape.type = DataType::float32;
    shape.nranks = nranks;
    return ring_geometry(shape, tuning, sm_count).parts;
  };
  EXPECT_EQ(parts(tuning.ring_large_bytes - 1024, 4, 132), tuning.ring_max_ctas);
  EXPECT_EQ(parts(tuning.ring_large_bytes, 4, 132), tuning.ring_large_ctas);
  EXPECT_EQ(parts(std::size_t{8} << 30, 3, 132), tuning.ring_large_ctas);
  EXPECT_EQ(parts(std::size_t{8} << 30, 4, 100), 100);  // one CTA per SM at most
  EXPECT_EQ(parts(4 * 3 * tuning.ring_min_part_bytes, 4, 132), 3);
  EXPECT_EQ(parts(16, 2, 132), 1);
}

// twoshot: at most twoshot_ctas CTAs (and kTwoshotMaxParts), each piece of a chunk per slice about
// twoshot_slice_bytes.
TEST(TwoshotGeometry, CtasAndSlicesFollowTheKnobs) {
  HandbuiltTuning tuning;
  auto geometry = [&tuning](std::size_t bytes, int nranks) {
    CaseShape shape{};
    shape.counts.param = bytes / 2;
    shape.type = DataType::bfloat16;
    shape.nranks = nranks;
    return twoshot_geometry(shape, tuning, 132);
  };
  // A 32 MiB bucket on 4 GPUs: 8 MiB chunks, 128 KiB per CTA, two 64 KiB slices.
  EXPECT_EQ(geometry(32u << 20, 4).parts, tuning.twoshot_ctas);
  EXPECT_EQ(geometry(32u << 20, 4).slices, 2);
  EXPECT_EQ(geometry(32u << 20, 4).line_elements, 8);
  tuning.twoshot_ctas = 500;  // above the flag rows
  EXPECT_EQ(geometry(std::size_t{1} << 30, 2).parts, 128);
  tuning.twoshot_ctas = 16;
  tuning.twoshot_slice_bytes = 1 << 20;
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
