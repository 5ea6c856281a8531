// NCCL's environment variables and ncclConfig_t fields for a case's communicators.
#include "runtime/nccl_settings.hpp"

#include <string>
#include <utility>
#include <vector>

namespace collbench {
namespace {

std::optional<std::string> chosen(const std::string& value) {
  return value.empty() ? std::nullopt : std::optional<std::string>(value);
}

}  // namespace

ScopedEnvironment nccl_environment(const CommunicatorSettings& settings) {
  return ScopedEnvironment(
      {{"NCCL_ALGO", chosen(settings.nccl_algo)}, {"NCCL_PROTO", chosen(settings.nccl_proto)}});
}

std::optional<ncclConfig_t> nccl_config(const CommunicatorSettings& settings) {
  if (!settings.has_nccl_config()) return std::nullopt;
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  if (settings.nccl_max_ctas > 0) config.maxCTAs = settings.nccl_max_ctas;
  return config;
}

}  // namespace collbench
