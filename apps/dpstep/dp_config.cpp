// Names, validation and the config string of a training-step configuration.
#include "dp_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "core/errors.hpp"

namespace collbench::dp {
namespace {

constexpr std::array<std::pair<SyncScheme, std::string_view>, 4> kSchemes = {{
    {SyncScheme::sync, "sync"},
    {SyncScheme::overlap, "overlap"},
    {SyncScheme::ps, "ps"},
    {SyncScheme::sharded, "sharded"},
}};

constexpr std::array<std::pair<EpilogueMode, std::string_view>, 3> kEpilogues = {{
    {EpilogueMode::automatic, "auto"},
    {EpilogueMode::fused, "fused"},
    {EpilogueMode::unfused, "unfused"},
}};

constexpr std::array<std::pair<CommSchedule, std::string_view>, 2> kCommSchedules = {{
    {CommSchedule::lanes, "lanes"},
    {CommSchedule::pipelined, "pipelined"},
}};

constexpr std::array<std::pair<GraphMemsets, std::string_view>, 2> kGraphMemsets = {{
    {GraphMemsets::kernel, "kernel"},
    {GraphMemsets::memset, "memset"},
}};

template <typename Table>
std::string known_names(const Table& table) {
  std::string names;
  for (const auto& entry : table)
    names += fmt::format("{}{}", names.empty() ? "" : ", ", entry.second);
  return names;
}

template <typename Table, typename Value>
std::string_view name_in(const Table& table, Value value) {
  for (const auto& [known, name] : table) {
    if (known == value) return name;
  }
  return "?";
}

// `what` names the setting in the error: "unknown sync mode 'x' (expected sync, overlap, ...)".
template <typename Table>
auto value_in(const Table& table, std::string_view name, std::string_view what) {
  for (const auto& [value, known] : table) {
    if (known == name) return value;
  }
  throw UsageError(fmt::format("unknown {} '{}' (expected {})", what, name, known_names(table)));
}

}  // namespace

std::string_view name_of(SyncScheme scheme) {
  return name_in(kSchemes, scheme);
}

SyncScheme parse_sync_scheme(std::string_view name) {
  return value_in(kSchemes, name, "sync mode");
}

bool uses_buckets(SyncScheme scheme) {
  return scheme != SyncScheme::sync;
}

std::string_view name_of(EpilogueMode mode) {
  return name_in(kEpilogues, mode);
}

EpilogueMode parse_epilogue_mode(std::string_view name) {
  return value_in(kEpilogues, name, "epilogue mode");
}

std::string_view name_of(CommSchedule schedule) {
  return name_in(kCommSchedules, schedule);
}

std::string_view name_of(GraphMemsets memsets) {
  return name_in(kGraphMemsets, memsets);
}

GraphMemsets parse_graph_memsets(std::string_view name) {
  return value_in(kGraphMemsets, name, "graph memset mode");
}

CommSchedule parse_comm_schedule(std::string_view name) {
  return value_in(kCommSchedules, name, "communication schedule");
}

int backward_gemm_sm_target(const StepConfig& config, int sm_count) {
  if (config.gemm_sm_margin <= 0 || config.ranks <= 1) return 0;
  return std::max(1, sm_count - config.gemm_sm_margin);
}

std::uint64_t bucket_cap_bytes(const StepConfig& config) {
  if (!uses_buckets(config.scheme)) return 0;
  return static_cast<std::uint64_t>(std::llround(config.bucket_mib * 1024.0 * 1024.0));
}

std::string format_mib(double mib) {
  return fmt::format("{}", mib);
}

}  // namespace collbench::dp
