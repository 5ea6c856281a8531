// Which algorithms implement which operation: NCCL for every collective, plus the hand-built
// all-reduce algorithms. Adding an implementation is adding one line here.
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "core/algorithm.hpp"
#include "algorithms/handbuilt_algorithms.hpp"
#include "core/nccl_algorithm.hpp"

namespace collbench {
namespace {

// NCCL's own environment (NCCL_ALGO ...) is NCCL's to report (NCCL_DEBUG=INFO).
std::string no_config(std::string_view) {
  return {};
}

}  // namespace

const std::vector<AlgorithmEntry>& algorithm_registry() {
  static const std::vector<AlgorithmEntry> registry = [] {
    std::vector<AlgorithmEntry> entries;
    for (const CollectiveSpec& spec : collective_registry()) {
      entries.push_back({"nccl", spec.kind, make_nccl_algorithm, no_config});
    }
    // Hand-built all-reduce implementations (kernels/, issue 3) are listed below.
    entries.push_back({"ring", OpKind::all_reduce, make_ring_algorithm, handbuilt_config});
    entries.push_back(
        {"ring_sendrecv", OpKind::all_reduce, make_ring_sendrecv_algorithm, handbuilt_config});
    entries.push_back({"oneshot", OpKind::all_reduce, make_oneshot_algorithm, handbuilt_config});
    entries.push_back({"twoshot", OpKind::all_reduce, make_twoshot_algorithm, handbuilt_config});
    entries.push_back(
        {"copy_engine", OpKind::all_reduce, make_copy_engine_algorithm, handbuilt_config});
    entries.push_back({"copy_engine_ring", OpKind::all_reduce, make_copy_engine_ring_algorithm,
                       handbuilt_config});
    return entries;
  }();
  return registry;
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

std::string_view name_of(LaunchPart part) {
  switch (part) {
    case LaunchPart::send:
      return "send";
    case LaunchPart::reduce:
      return "reduce";
    case LaunchPart::gather:
      return "gather";
    case LaunchPart::finish:
      return "finish";
  }
  return "?";
}

void CollectiveAlgorithm::launch_part(const std::vector<RankContext>&, LaunchPart part) {
  throw std::logic_error(
      fmt::format("{}: launched in parts ({}), which it does not support", name(), name_of(part)));
}

std::string algorithm_config(std::string_view name) {
  const AlgorithmEntry* entry = find_algorithm(name);
  return entry ? entry->config(name) : std::string();
}

}  // namespace collbench
