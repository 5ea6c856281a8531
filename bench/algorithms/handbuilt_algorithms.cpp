// What the hand-built algorithms share: the list of their descriptors, lookup and construction by
// name, and their entries in the registry.
#include "algorithms/handbuilt_algorithms.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/errors.hpp"

namespace collbench {

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
  throw UsageError(fmt::format("unknown hand-built algorithm '{}' (expected one of {})", name,
                               fmt::join(known, ", ")));
}

AlgorithmEntry registry_entry(const HandbuiltDescriptor& descriptor) {
  return {
      descriptor.name,
      OpKind::all_reduce,
      descriptor.summary,
      descriptor.kernels,
      descriptor.setting_prefix,
      descriptor.settings,
      descriptor.capabilities,
      [make = descriptor.make](const std::vector<RankContext>& ranks, const SettingValues& values)
          -> std::unique_ptr<CollectiveAlgorithm> { return make(ranks, values); }};
}

std::unique_ptr<HandbuiltAlgorithm> make_handbuilt_algorithm(
    std::string_view name, const std::vector<RankContext>& ranks) {
  const HandbuiltDescriptor& descriptor = find_handbuilt(name);
  std::vector<std::string> defaults;
  for (const SettingSpec& spec : descriptor.settings) defaults.push_back(spec.default_value);
  return descriptor.make(ranks, SettingValues(&descriptor.settings, std::move(defaults)));
}

}  // namespace collbench
