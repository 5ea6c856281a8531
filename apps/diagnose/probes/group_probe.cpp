// Collectives on a group: split communicators, buffers, gated timed launches, busbw.
#include "probes/group_probe.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "algorithms/nccl_algorithm.hpp"
#include "core/collective_registry.hpp"
#include "core/errors.hpp"
#include "probes/rank_records.hpp"
#include "report/figure_text.hpp"
#include "reports/statistics.hpp"

namespace collbench::diagnose {
namespace {

// One member's timing of one op, as it travels between processes.
struct MemberRecord {
  int rank = -1;  // -1: not a member
  double median_us = 0;
};

// The members of the group on this process's host: the gate's count for its rounds.
int members_on_host(const Runner::RankSet& set, const std::vector<int>& members) {
  const std::vector<int>& host_of = set.host_of_rank();
  const int here = host_of[set.count_rank(0)];
  return static_cast<int>(std::count_if(members.begin(), members.end(),
                                        [&](int rank) { return host_of[rank] == here; }));
}

// Communicators of the group for the local ranks that are in it (by local index; null for the
// others), split from the world's: collective over every world rank.
std::vector<std::optional<NcclCommunicator>> split_group(Runner::RankSet& set,
                                                         const std::vector<int>& members) {
  const int locals = set.size();
  std::vector<ncclComm_t> comms(locals, nullptr);
  CB_NCCL_CHECK(ncclGroupStart());
  for (int local = 0; local < locals; ++local) {
    const RankContext& rank = set.contexts()[local];
    const auto found = std::find(members.begin(), members.end(), rank.rank);
    const int color = found == members.end() ? NCCL_SPLIT_NOCOLOR : 0;
    CB_NCCL_CHECK(ncclCommSplit(rank.comm, color, rank.rank, &comms[local], nullptr));
  }
  CB_NCCL_CHECK(ncclGroupEnd());
  std::vector<std::optional<NcclCommunicator>> group(locals);
  for (int local = 0; local < locals; ++local) {
    if (!comms[local]) continue;
    const int index = static_cast<int>(
        std::find(members.begin(), members.end(), set.contexts()[local].rank) - members.begin());
    group[local].emplace(comms[local], set.contexts()[local].device, index);
  }
  return group;
}

// The group's view of the local ranks: their contexts on the group's communicators (the world's
// for the whole world, a split's for a subgroup) and whether each takes part.
struct GroupRanks {
  std::vector<std::optional<NcclCommunicator>> split;
  std::vector<RankContext> contexts;
  std::vector<bool> member;
};

GroupRanks group_ranks(Runner::RankSet& set, int world_ranks, const std::vector<int>& members) {
  const int locals = set.size();
  const bool everyone = static_cast<int>(members.size()) == world_ranks;
  GroupRanks group;
  if (!everyone) group.split = split_group(set, members);
  group.contexts.resize(locals);
  group.member.assign(locals, false);
  for (int local = 0; local < locals; ++local) {
    group.contexts[local] = set.contexts()[local];
    group.member[local] = everyone || group.split[local].has_value();
    if (!everyone && group.split[local]) {
      group.contexts[local].comm = group.split[local]->get();
      group.contexts[local].rank = group.split[local]->rank();
    }
  }
  return group;
}

// Send and receive buffers of one op on the members (empty on the others).
struct OpBuffers {
  std::vector<DeviceBuffer> sends, receives;
  std::vector<RankBuffers> ranks;
};

OpBuffers allocate_buffers(const GroupRanks& group, const ElementCounts& counts) {
  OpBuffers buffers;
  buffers.ranks.resize(group.contexts.size());
  for (std::size_t local = 0; local < group.contexts.size(); ++local) {
    if (!group.member[local]) {
      buffers.sends.emplace_back();
      buffers.receives.emplace_back();
      continue;
    }
    const int device = group.contexts[local].device;
    buffers.sends.emplace_back(device, std::max<std::size_t>(counts.send * sizeof(float), 1));
    buffers.receives.emplace_back(device, std::max<std::size_t>(counts.recv * sizeof(float), 1));
    buffers.ranks[local] = {buffers.sends[local].get(), buffers.receives[local].get()};
  }
  return buffers;
}

// Times the work; on failure the world's communicators are aborted, and a subgroup's kernels must
// end too before its buffers are freed on the way out.
std::vector<RankTimes> time_group(Runner::RankSet& set, const TimedWork& work, GroupRanks& group) {
  try {
    return time_on_ranks(set, work);
  } catch (...) {
    for (std::optional<NcclCommunicator>& communicator : group.split) {
      if (communicator) communicator->abort();
    }
    throw;
  }
}

// The slowest member's median time (every process's records gathered) and its bus bandwidth.
GroupFigures slowest_member(Runner::RankSet& set, int world_ranks, const std::vector<int>& members,
                            const GroupProbeSettings& settings, const GroupRanks& group,
                            const std::vector<RankTimes>& times) {
  std::vector<MemberRecord> records(group.contexts.size());
  for (std::size_t local = 0; local < group.contexts.size(); ++local) {
    if (!group.member[local]) continue;
    records[local].rank = set.contexts()[local].rank;
    records[local].median_us = stats::median(times[local].duration_us);
  }
  const std::vector<MemberRecord> all =
      every_rank(set, records, world_ranks, settings.multi_process, settings.timeout_s);
  GroupFigures figures;
  figures.ranks = members;
  for (int rank : members) figures.time_us = std::max(figures.time_us, all[rank].median_us);
  return figures;
}

}  // namespace

std::vector<GroupFigures> probe_group(Runner::RankSet& set, int world_ranks,
                                      const std::vector<int>& members,
                                      const GroupProbeSettings& settings) {
  const int size = static_cast<int>(members.size());
  GroupRanks group = group_ranks(set, world_ranks, members);
  std::vector<GroupFigures> result;
  for (const std::string& op : settings.ops) {
    const CollectiveSpec& spec = find_collective(op);
    const ElementCounts counts =
        spec.counts(settings.bytes / sizeof(float), sizeof(float), size, nullptr);
    const CaseShape shape{&spec,
                          counts,
                          DataType::float32,
                          spec.reduces ? ReduceOp::sum : ReduceOp::none,
                          spec.rooted ? 0 : -1,
                          size,
                          false};
    const OpBuffers buffers = allocate_buffers(group, counts);
    TimedWork work;
    work.takes_part = group.member;
    work.warmup = settings.warmup;
    work.iterations = std::min(settings.iterations, kMaxGroupIterations);
    work.timeout_s = settings.timeout_s;
    work.what = fmt::format("{} on ranks {}", op, rank_list(members));
    work.gated_ranks_on_host = members_on_host(set, members);
    settings.faults.apply_to(work);
    work.launch = [&](int local, bool timed) {
      if (timed && settings.faults.skips && settings.faults.skips(local)) return false;
      launch_nccl_group({group.contexts[local]}, {buffers.ranks[local]}, shape, 1);
      return true;
    };
    const std::vector<RankTimes> times = time_group(set, work, group);
    GroupFigures figures = slowest_member(set, world_ranks, members, settings, group, times);
    figures.op = op;
    const double seconds = figures.time_us * 1e-6;
    figures.busbw_gbps = figures.time_us > 0 ? algbw_bytes(spec, counts, DataType::float32, size) /
                                                   seconds / 1e9 * spec.bus_factor(size)
                                             : 0;
    result.push_back(figures);
  }
  return result;
}

}  // namespace collbench::diagnose
