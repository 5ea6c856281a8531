// The replay's combinations.
#include "plan/replay_combinations.hpp"

#include <fmt/format.h>

#include "core/config_column.hpp"

namespace collbench::replay {

std::string ReplayCombination::config() const {
  std::string config = communicator_config(communicators, 1);
  if (handbuilt_all_reduce()) {
    append_config(config, fmt::format("algo={}", all_reduce.name()));
    append_config(config, all_reduce.config());
  }
  append_config(config, registration_config(registration));
  if (graph) append_config(config, "issue=graph");
  return config;
}

std::string ReplayCombination::name() const {
  const std::string text = config();
  return text.empty() ? "default" : text;
}

std::vector<ReplayCombination> replay_combinations(
    const CommunicatorAxes& axes, const std::vector<AlgorithmChoice>& all_reduce_algos,
    const std::vector<bool>& graphs) {
  const std::vector<bool> modes = graphs.empty() ? std::vector<bool>{false} : graphs;
  const std::vector<AlgorithmChoice> algos =
      all_reduce_algos.empty() ? std::vector<AlgorithmChoice>{AlgorithmChoice{}} : all_reduce_algos;
  std::vector<ReplayCombination> combinations;
  for (BufferRegistration registration : axes.registrations) {
    for (const AlgorithmChoice& algo : algos) {
      for (const CommunicatorSettings& settings : nccl_combinations(axes, std::nullopt)) {
        for (const bool graph : modes)
          combinations.push_back({settings, registration, algo, graph});
      }
    }
  }
  return combinations;
}

}  // namespace collbench::replay
