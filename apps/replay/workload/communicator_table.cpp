// Communicator lookups: members sorted by global rank, searched in O(log size).
#include "workload/communicator_table.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace collbench::replay {

CommunicatorTable::CommunicatorTable(std::vector<Communicator> communicators) {
  for (Communicator& communicator : communicators) add(std::move(communicator));
}

void CommunicatorTable::add(Communicator communicator) {
  std::vector<std::pair<int, int>> members;
  members.reserve(communicator.ranks.size());
  for (std::size_t local = 0; local < communicator.ranks.size(); ++local) {
    members.emplace_back(communicator.ranks[local], static_cast<int>(local));
  }
  std::sort(members.begin(), members.end());
  by_global_.push_back(std::move(members));
  communicators_.push_back(std::move(communicator));
}

int CommunicatorTable::local_rank(int id, int rank) const {
  const auto& members = by_global_.at(static_cast<std::size_t>(id));
  const auto found =
      std::lower_bound(members.begin(), members.end(), std::pair<int, int>{rank, -1});
  return found != members.end() && found->first == rank ? found->second : -1;
}

std::string CommunicatorTable::describe(int id) const {
  const std::vector<int>& ranks = at(id).ranks;
  constexpr std::size_t kShownRanks = 8;  // a world of thousands stays one short line
  if (ranks.size() <= kShownRanks) {
    return fmt::format("communicator {} (ranks {})", id, fmt::join(ranks, ","));
  }
  return fmt::format("communicator {} ({} ranks: {},...,{})", id, ranks.size(),
                     fmt::join(ranks.begin(), ranks.begin() + 3, ","), ranks.back());
}

}  // namespace collbench::replay
