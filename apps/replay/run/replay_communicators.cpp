// Splitting the world into the workload's communicators.
#include "run/replay_communicators.hpp"

#include <fmt/format.h>

#include "telemetry/nvtx.hpp"

namespace collbench::replay {

std::vector<std::vector<NcclCommunicator>> split_workload_communicators(
    const std::vector<RankContext>& world, const CommunicatorTable& communicators,
    const ncclConfig_t* config) {
  auto range = named_range(fmt::format("split {} communicators", communicators.count()), 0x404040);
  std::vector<std::vector<NcclCommunicator>> by_rank(world.size());
  for (int id = 0; id < communicators.count(); ++id) {
    std::vector<int> colors, keys;
    for (const RankContext& rank : world) {
      const int place = communicators.local_rank(id, rank.rank);
      colors.push_back(place >= 0 ? id : NCCL_SPLIT_NOCOLOR);
      keys.push_back(place >= 0 ? place : 0);
    }
    std::vector<NcclCommunicator> split = split_communicators(world, colors, config, keys);
    for (std::size_t local = 0; local < world.size(); ++local)
      by_rank[local].push_back(std::move(split[local]));
  }
  return by_rank;
}

}  // namespace collbench::replay
