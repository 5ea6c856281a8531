// Names, validation and the config string of a training-step configuration.
#include "dp_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "errors.hpp"

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

template <typename Table>
std::string known_names(const Table& table) {
  std::string names;
  for (const auto& entry : table)
    names += fmt::format("{}{}", names.empty() ? "" : ", ", entry.second);
  return names;
}

}  // namespace

std::string_view name_of(SyncScheme scheme) {
  for (const auto& [value, name] : kSchemes) {
    if (value == scheme) return name;
  }
  return "?";
}

SyncScheme parse_sync_scheme(std::string_view name) {
  for (const auto& [value, known] : kSchemes) {
    if (known == name) return value;
  }
  throw UsageError(
      fmt::format("unknown sync mode '{}' (expected {})", name, known_names(kSchemes)));
}

bool uses_buckets(SyncScheme scheme) {
  return scheme != SyncScheme::sync;
}

std::string_view name_of(EpilogueMode mode) {
  for (const auto& [value, name] : kEpilogues) {
    if (value == mode) return name;
  }
  return "?";
}

EpilogueMode parse_epilogue_mode(std::string_view name) {
  for (const auto& [value, known] : kEpilogues) {
    if (known == name) return value;
  }
  throw UsageError(
      fmt::format("unknown epilogue mode '{}' (expected {})", name, known_names(kEpilogues)));
}

void validate(const ModelConfig& model) {
  if (model.layers < 1)
    throw UsageError(fmt::format("--layers {}: need at least 1 layer", model.layers));
  // Multiples of 8 keep every row 16-byte aligned, which cuBLASLt's tensor-core kernels need.
  if (model.width < 8 || model.width % 8 != 0) {
    throw UsageError(fmt::format("--width {}: must be a positive multiple of 8", model.width));
  }
  if (model.batch < 1)
    throw UsageError(fmt::format("--batch {}: need at least 1 sample per GPU", model.batch));
  if (model.dtype != DataType::float32 && model.dtype != DataType::bfloat16) {
    throw UsageError(
        fmt::format("--dtype {}: the model runs in float or bfloat16", name_of(model.dtype)));
  }
  if (!(model.learning_rate > 0) || !std::isfinite(model.learning_rate)) {
    throw UsageError(fmt::format("--lr {}: must be a positive number", model.learning_rate));
  }
  if (!(model.momentum >= 0 && model.momentum < 1)) {
    throw UsageError(fmt::format("--momentum {}: must be in [0, 1)", model.momentum));
  }
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

std::string config_string(const StepConfig& config) {
  const ModelConfig& m = config.model;
  const ModelConfig defaults;
  std::string text =
      fmt::format("layers={};width={};batch={};dtype={};sync={};bucket_mib={};algo={}", m.layers,
                  m.width, m.batch, name_of(m.dtype), name_of(config.scheme),
                  uses_buckets(config.scheme) ? format_mib(config.bucket_mib) : "0", config.algo);
  if (m.dtype == DataType::bfloat16)
    text += m.master_weights ? ";optimizer=fp32_master" : ";optimizer=bf16";
  if (m.epilogue != EpilogueMode::automatic)
    text += fmt::format(";epilogue={}", name_of(m.epilogue));
  if (config.nccl_max_ctas > 0) text += fmt::format(";nccl_max_ctas={}", config.nccl_max_ctas);
  if (config.gemm_sm_margin > 0) text += fmt::format(";gemm_sm_margin={}", config.gemm_sm_margin);
  if (m.learning_rate != defaults.learning_rate) text += fmt::format(";lr={}", m.learning_rate);
  if (m.momentum != defaults.momentum) text += fmt::format(";momentum={}", m.momentum);
  return text;
}

std::string benchmark_name(const StepConfig& config) {
  return fmt::format("dp_step/{}/bucket_mib:{}/algo:{}/ranks:{}", name_of(config.scheme),
                     uses_buckets(config.scheme) ? format_mib(config.bucket_mib) : "0", config.algo,
                     config.ranks);
}

}  // namespace collbench::dp
