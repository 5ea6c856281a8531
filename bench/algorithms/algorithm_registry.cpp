// Which implementations each operation has: NCCL for every collective, then the hand-built
// all-reduce algorithms, each from its own descriptor (algorithms/handbuilt_algorithms.hpp).
#include "algorithms/algorithm_registry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <stdexcept>

#include "algorithms/handbuilt_algorithms.hpp"
#include "algorithms/nccl_algorithm.hpp"
#include "core/errors.hpp"

namespace collbench {

const std::vector<AlgorithmEntry>& algorithm_registry() {
  static const std::vector<AlgorithmEntry> registry = [] {
    std::vector<AlgorithmEntry> entries;
    for (const CollectiveSpec& spec : collective_registry()) {
      // NCCL's transfers, on communicators made as the case's settings say (--nccl-algo, --split).
      AlgorithmCapabilities nccl_capabilities = nccl_transfer_capabilities();
      nccl_capabilities.nccl_communicator_variants = true;
      entries.push_back({"nccl",
                         spec.kind,
                         "NCCL's own implementation (NCCL_* variables apply)",
                         "NCCL",
                         "nccl",
                         {},
                         nccl_capabilities,
                         [](const std::vector<RankContext>& ranks, const SettingValues&) {
                           return make_nccl_algorithm(ranks);
                         }});
    }
    for (const HandbuiltDescriptor* descriptor : handbuilt_descriptors()) {
      entries.push_back(registry_entry(*descriptor));
    }
    return entries;
  }();
  return registry;
}

AlgorithmCapabilities nccl_transfer_capabilities() {
  AlgorithmCapabilities capabilities;
  capabilities.registered_buffers = true;
  return capabilities;
}

std::vector<std::string> algorithm_names(OpKind op) {
  std::vector<std::string> names;
  for (const AlgorithmEntry& entry : algorithm_registry()) {
    if (entry.op == op) names.emplace_back(entry.name);
  }
  return names;
}

const AlgorithmEntry* find_algorithm(std::string_view name) {
  for (const AlgorithmEntry& entry : algorithm_registry()) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

const AlgorithmEntry* find_algorithm(std::string_view name, OpKind op) {
  for (const AlgorithmEntry& entry : algorithm_registry()) {
    if (entry.name == name && entry.op == op) return &entry;
  }
  return nullptr;
}

AlgorithmChoice resolve_algorithm(std::string_view text, const EnvironmentLookup& environment) {
  const AlgorithmRequest request = parse_algorithm_request(text);
  const AlgorithmEntry* entry = find_algorithm(request.name);
  if (entry == nullptr) {
    std::vector<std::string_view> known;
    for (const AlgorithmEntry& candidate : algorithm_registry()) {
      if (std::find(known.begin(), known.end(), candidate.name) == known.end())
        known.push_back(candidate.name);
    }
    throw UsageError(fmt::format("unknown algorithm '{}' (expected one of {})", request.name,
                                 fmt::join(known, ", ")));
  }
  return {entry, resolve_settings(entry->settings, entry->setting_prefix, request, environment)};
}

std::string algorithm_settings_help() {
  std::string help;
  std::vector<std::string_view> described;
  for (const AlgorithmEntry& entry : algorithm_registry()) {
    if (std::find(described.begin(), described.end(), entry.name) != described.end()) continue;
    described.push_back(entry.name);
    help += fmt::format("  {:<17} {} ({})\n", entry.name, entry.summary, entry.source);
    for (const SettingSpec& spec : entry.settings) {
      help += fmt::format("      {}={}, default {} ({})\n          {}\n",
                          short_name(spec, entry.setting_prefix), describe_values(spec),
                          describe_default(spec), environment_name(spec), spec.help);
    }
  }
  return help;
}

}  // namespace collbench
