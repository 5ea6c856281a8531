// Collectives on a group: split communicators, buffers, gated timed launches, busbw.
#include "group_probe.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "core/collective_registry.hpp"
#include "core/errors.hpp"
#include "algorithms/nccl_algorithm.hpp"
#include "figure_text.hpp"
#include "rank_records.hpp"
#include "statistics.hpp"

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
  return static_cast<int>(std::count_if(members.begin(), members.end(), [&](int rank) { return host_of[rank] == here; }));
}

// Communicators of the group for the local ranks that are in it (by local index; null for the
// others), split from the world's: collective over every world rank.
std::vector<std::optional<NcclCommunicator>> split_group(Runner::RankSet& set, const std::vector<int>& members) {
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
    const int index = static_cast<int>(std::find(members.begin(), members.end(), set.contexts()[local].rank) -
                                       members.begin());
    group[local].emplace(comms[local], set.contexts()[local].device, index);
  }
  return group;
}

}  // namespace

std::vector<GroupFigures> probe_group(Runner::RankSet& set, int world_ranks, const std::vector<int>& members,
                        const GroupProbeSettings& settings) {
  const int locals = set.size();
  const int size = static_cast<int>(members.size());
  const bool everyone = size == world_ranks;
  // The world's communicators serve the whole group; a subgroup gets its own.
  std::vector<std::optional<NcclCommunicator>> split;
  if (!everyone) split = split_group(set, members);
  std::vector<RankContext> contexts(locals);
  std::vector<bool> member(locals, false);
  for (int local = 0; local < locals; ++local) {
    contexts[local] = set.contexts()[local];
    member[local] = everyone || split[local].has_value();
    if (!everyone && split[local]) {
      contexts[local].comm = split[local]->get();
      contexts[local].rank = split[local]->rank();
    }
  }
  std::vector<GroupFigures> result;
  for (const std::string& op : settings.ops) {
    const CollectiveSpec& spec = find_collective(op);
    const ElementCounts counts =
        spec.counts(settings.bytes / sizeof(float), sizeof(float), size, nullptr);
    const CaseShape shape{&spec, counts, DataType::float32, spec.reduces ? ReduceOp::sum : ReduceOp::none,
                          spec.rooted ? 0 : -1, size, false};
    std::vector<DeviceBuffer> sends, receives;
    std::vector<RankBuffers> buffers(locals);
    for (int local = 0; local < locals; ++local) {
      if (!member[local]) {
        sends.emplace_back();
        receives.emplace_back();
        continue;
      }
      sends.emplace_back(contexts[local].device, std::max<std::size_t>(counts.send * sizeof(float), 1));
      receives.emplace_back(contexts[local].device, std::max<std::size_t>(counts.recv * sizeof(float), 1));
      buffers[local] = {sends[local].get(), receives[local].get()};
    }
    TimedWork work;
    work.takes_part = member;
    work.warmup = settings.warmup;
    work.iterations = std::min(settings.iterations, kMaxGroupIterations);
    work.timeout_s = settings.timeout_s;
    work.what = fmt::format("{} on ranks {}", op, rank_list(members));
    work.gated_ranks_on_host = members_on_host(set, members);
    settings.faults.apply_to(work);
    work.launch = [&](int local, bool timed) {
      if (timed && settings.faults.skips && settings.faults.skips(local)) return false;
      launch_nccl_group({contexts[local]}, {buffers[local]}, shape, 1);
      return true;
    };
    std::vector<RankTimes> times;
    try {
      times = time_on_ranks(set, work);
    } catch (...) {
      // The world's communicators are aborted; a subgroup's kernels must end too before its
      // buffers are freed on the way out.
      for (std::optional<NcclCommunicator>& communicator : split) {
        if (communicator) communicator->abort();
      }
      throw;
    }
    std::vector<MemberRecord> records(locals);
    for (int local = 0; local < locals; ++local) {
      if (!member[local]) continue;
      MemberRecord& record = records[local];
      record.rank = set.contexts()[local].rank;
      record.median_us = stats::median(times[local].duration_us);
    }
    const std::vector<MemberRecord> all = every_rank(set, records, world_ranks, settings.multi_process,
                                                     settings.timeout_s);
    double slowest_us = 0;
    for (int rank : members) slowest_us = std::max(slowest_us, all[rank].median_us);
    GroupFigures figures;
    figures.ranks = members;
    figures.op = op;
    figures.time_us = slowest_us;
    figures.busbw_gbps = slowest_us > 0 ? algbw_bytes(spec, counts, DataType::float32, size) / (slowest_us * 1e-6) /
                                              1e9 * spec.bus_factor(size)
                                        : 0;
    result.push_back(figures);
  }
  return result;
}

}  // namespace collbench::diagnose
