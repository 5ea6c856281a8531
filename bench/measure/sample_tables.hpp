// Tables of per-rank samples (one row per rank, one value per sample): gathered from every process
// by rank number, the slowest rank of each --split group, and launch lateness within each host.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "measure/rank_set.hpp"

namespace collbench {

using RankTable = std::vector<std::vector<double>>;

// Tables of values per local rank and sample (`samples` of each), indexed by rank number [0,
// ranks) on every process: each process contributes the ranks it holds, summed across processes
// in one all-reduce over the GPU count's communicator (`wait` as all_reduce_host_values asks).
std::vector<RankTable> gather_by_rank(Runner::RankSet& set, int ranks, std::size_t samples,
                                      const std::vector<RankTable>& local_tables,
                                      bool multi_process, const std::function<void()>& wait);

// Per group of `groups` (rank numbers), each sample's slowest rank of the group.
RankTable slowest_per_group(const RankTable& by_rank, const std::vector<std::vector<int>>& groups);

// Each rank's launch time of every sample minus the earliest launch of that sample among the ranks
// of its host (`host_of[rank]`: equal for one host, whose clock they share); 0 for a rank alone on
// its host. Pure.
RankTable lateness_within_hosts(const RankTable& launch_us, const std::vector<int>& host_of);

}  // namespace collbench
