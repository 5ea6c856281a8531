// What the hand-built algorithms share: their settings' declarations, the list of descriptors, and
// construction by name.
#include "algorithms/handbuilt_algorithms.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <utility>
#include <string>
#include <string_view>
#include <vector>

#include "core/errors.hpp"

namespace collbench {

namespace {

// The names --algo, the environment and the CSV config column use for the two-way knobs.
std::string name_of(PeerKernelLaunch launch) {
  return launch == PeerKernelLaunch::graph ? "graph" : "direct";
}

}  // namespace

RoundSplit equal_rounds(std::uint64_t count, std::uint64_t largest, std::uint64_t unit) {
  if (count == 0) return {unit, 0};
  largest = std::max(unit, largest / unit * unit);
  const std::uint64_t fewest = (count + largest - 1) / largest;
  const std::uint64_t share = (count + fewest - 1) / fewest;
  const std::uint64_t elements = (share + unit - 1) / unit * unit;  // <= largest
  // Rounding the share up to whole units may leave fewer rounds than `fewest`, never more.
  return {elements, static_cast<int>((count + elements - 1) / elements)};
}

bool oneshot_is_programmatic(ProgrammaticLaunch mode, int nranks, std::size_t bytes) {
  if (mode != ProgrammaticLaunch::by_size) return mode == ProgrammaticLaunch::on;
  return static_cast<std::size_t>(std::max(nranks - 1, 0)) * bytes >=
         kOneshotProgrammaticMinPeerBytes;
}

void HandbuiltTuning::validate() const {
  if (!kernels::ring_push_slots_valid(ring_slots)) {
    throw UsageError(fmt::format("ring_slots={} is not a power of two from 2 to {} (staging slots per CTA)",
                                 ring_slots, kernels::kRingMaxSlots));
  }
  for (const auto& [name, value] : {std::pair{"ring_ctas", ring_max_ctas}, std::pair{"ring_large_ctas", ring_large_ctas},
                                    std::pair{"twoshot_ctas", twoshot_ctas},
                                    std::pair{"ce_reduce_blocks", copy_engine_reduce_blocks}}) {
    if (value < 1) throw UsageError(fmt::format("{}={} is not positive", name, value));
  }
}

TuningSetting integer_setting(std::string name, int HandbuiltTuning::*field, int min_value, int max_value,
                              std::string help) {
  SettingSpec spec = number_setting(name, SettingKind::integer, std::to_string(HandbuiltTuning{}.*field),
                                    min_value, max_value, std::move(help));
  return {std::move(spec), [name, field](HandbuiltTuning& tuning, const SettingValues& values) {
            tuning.*field = static_cast<int>(values.integer(name));
          }};
}

TuningSetting bytes_setting(std::string name, std::size_t HandbuiltTuning::*field, std::size_t min_value,
                            std::size_t max_value, std::string help) {
  SettingSpec spec = number_setting(name, SettingKind::bytes, std::to_string(HandbuiltTuning{}.*field),
                                    static_cast<double>(min_value), static_cast<double>(max_value), std::move(help));
  return {std::move(spec), [name, field](HandbuiltTuning& tuning, const SettingValues& values) {
            tuning.*field = values.bytes(name);
          }};
}

TuningSetting peer_launch_setting() {
  SettingSpec spec = choice_setting("peer_launch", {name_of(PeerKernelLaunch::graph), name_of(PeerKernelLaunch::direct)},
                                    name_of(HandbuiltTuning{}.peer_kernel_launch),
                                    "launched normally, each kernel goes through a one-kernel graph or is launched itself");
  return {std::move(spec), [](HandbuiltTuning& tuning, const SettingValues& values) {
            tuning.peer_kernel_launch =
                values.text("peer_launch") == "graph" ? PeerKernelLaunch::graph : PeerKernelLaunch::direct;
          }};
}

TuningSetting peer_timeout_setting() {
  SettingSpec spec = number_setting("peer_timeout_s", SettingKind::seconds,
                                    fmt::format("{:g}", HandbuiltTuning{}.peer_timeout_s), 0, 86400,
                                    "a kernel waiting longer on one peer gives up (0: never)");
  spec.measured = false;
  return {std::move(spec), [](HandbuiltTuning& tuning, const SettingValues& values) {
            tuning.peer_timeout_s = values.real("peer_timeout_s");
          }};
}

const std::vector<const HandbuiltDescriptor*>& handbuilt_descriptors() {
  static const std::vector<const HandbuiltDescriptor*> descriptors = {
      &ring_descriptor(),    &ring_sendrecv_descriptor(), &oneshot_descriptor(),
      &twoshot_descriptor(), &copy_engine_descriptor(),   &copy_engine_ring_descriptor()};
  return descriptors;
}

const HandbuiltDescriptor& find_handbuilt(std::string_view name) {
  std::vector<std::string_view> known;
  for (const HandbuiltDescriptor* descriptor : handbuilt_descriptors()) {
    if (descriptor->name == name) return *descriptor;
    known.push_back(descriptor->name);
  }
  throw UsageError(fmt::format("unknown hand-built algorithm '{}' (expected one of {})", name, fmt::join(known, ", ")));
}

HandbuiltTuning tuning_from(const HandbuiltDescriptor& descriptor, const SettingValues& settings) {
  HandbuiltTuning tuning;
  for (const TuningSetting& setting : descriptor.settings) setting.apply(tuning, settings);
  tuning.validate();
  return tuning;
}

AlgorithmEntry registry_entry(const HandbuiltDescriptor& descriptor) {
  AlgorithmEntry entry{descriptor.name,           OpKind::all_reduce, descriptor.summary, descriptor.kernels,
                       descriptor.setting_prefix, {},                  descriptor.capabilities, {}};
  for (const TuningSetting& setting : descriptor.settings) entry.settings.push_back(setting.spec);
  const HandbuiltDescriptor* described = &descriptor;
  entry.make = [described](const std::vector<RankContext>& ranks,
                           const SettingValues& settings) -> std::unique_ptr<CollectiveAlgorithm> {
    return described->make(ranks, tuning_from(*described, settings));
  };
  return entry;
}

std::unique_ptr<HandbuiltAlgorithm> make_handbuilt_algorithm(std::string_view name,
                                                             const std::vector<RankContext>& ranks,
                                                             const HandbuiltTuning& tuning) {
  return find_handbuilt(name).make(ranks, tuning);
}

}  // namespace collbench
