// Gathering, grouping and aligning per-rank sample tables.
#include "measure/sample_tables.hpp"

#include <algorithm>

#include "runtime/host_collectives.hpp"

namespace collbench {

std::vector<RankTable> gather_by_rank(Runner::RankSet& set, int ranks, std::size_t samples,
                                      const std::vector<RankTable>& local_tables,
                                      bool multi_process, const std::function<void()>& wait) {
  const std::size_t table_size = static_cast<std::size_t>(ranks) * samples;
  std::vector<double> flat(local_tables.size() * table_size, 0.0);
  for (std::size_t table = 0; table < local_tables.size(); ++table) {
    for (int local = 0; local < set.size(); ++local) {
      const std::size_t rank = static_cast<std::size_t>(set.count_rank(local));
      const std::vector<double>& values = local_tables[table][local];
      std::copy(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(samples),
                flat.begin() + static_cast<std::ptrdiff_t>(table * table_size + rank * samples));
    }
  }
  if (multi_process)
    flat =
        all_reduce_host_values<double>({set.agreement_contexts().front()}, {flat}, ncclSum, wait);
  std::vector<RankTable> by_rank(local_tables.size(), RankTable(ranks));
  for (std::size_t table = 0; table < local_tables.size(); ++table) {
    for (int rank = 0; rank < ranks; ++rank) {
      const auto first =
          flat.begin() + static_cast<std::ptrdiff_t>(table * table_size + rank * samples);
      by_rank[table][rank].assign(first, first + static_cast<std::ptrdiff_t>(samples));
    }
  }
  return by_rank;
}

RankTable slowest_per_group(const RankTable& by_rank, const std::vector<std::vector<int>>& groups) {
  RankTable slowest;
  for (const std::vector<int>& group : groups) {
    std::vector<double> times(by_rank.empty() ? 0 : by_rank.front().size(), 0.0);
    for (int rank : group) {
      for (std::size_t s = 0; s < times.size(); ++s)
        times[s] = std::max(times[s], by_rank[rank][s]);
    }
    slowest.push_back(std::move(times));
  }
  return slowest;
}

RankTable lateness_within_hosts(const RankTable& launch_us, const std::vector<int>& host_of) {
  RankTable lateness = launch_us;
  for (std::size_t s = 0; !launch_us.empty() && s < launch_us.front().size(); ++s) {
    for (std::size_t rank = 0; rank < launch_us.size(); ++rank) {
      double earliest = launch_us[rank][s];
      for (std::size_t other = 0; other < launch_us.size(); ++other) {
        const bool same_host = host_of.empty() || host_of[other] == host_of[rank];
        if (same_host) earliest = std::min(earliest, launch_us[other][s]);
      }
      lateness[rank][s] = launch_us[rank][s] - earliest;
    }
  }
  return lateness;
}

}  // namespace collbench
