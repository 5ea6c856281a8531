// The replay's combinations.
#include "plan/replay_combinations.hpp"

#include "core/config_column.hpp"

namespace collbench::replay {

std::string ReplayCombination::config() const {
  std::string config = communicator_config(communicators, 1);
  append_config(config, registration_config(registration));
  return config;
}

std::string ReplayCombination::name() const {
  const std::string text = config();
  return text.empty() ? "default" : text;
}

std::vector<ReplayCombination> replay_combinations(const CommunicatorAxes& axes) {
  std::vector<ReplayCombination> combinations;
  for (BufferRegistration registration : axes.registrations) {
    for (const CommunicatorSettings& settings : nccl_combinations(axes, std::nullopt))
      combinations.push_back({settings, registration});
  }
  return combinations;
}

}  // namespace collbench::replay
