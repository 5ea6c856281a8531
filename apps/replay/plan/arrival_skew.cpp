// Arrival skew and the time without waiting, replayed and recorded.
#include "plan/arrival_skew.hpp"

#include <algorithm>
#include <stdexcept>

namespace collbench::replay {
namespace {

// A member's interval with its duration shared among the calls of its launch (its start kept).
OpInterval shared(const OpInterval& interval, const CallMember& member) {
  const auto calls = static_cast<double>(std::max<std::size_t>(member.calls_in_launch, 1));
  return {interval.start_us, interval.start_us + interval.duration_us() / calls};
}

// The recorded intervals of a call's members; nothing when one has no start and end.
std::optional<std::vector<OpInterval>> recorded_members(const CallMembers& call,
                                                        const WorkloadOps& workload) {
  std::vector<OpInterval> members;
  for (const CallMember& member : call) {
    const RecordedTimes& times = workload.by_rank.at(member.rank).at(member.ordinal).times;
    if (!times.start_us || !times.end_us) return std::nullopt;
    members.push_back(shared({*times.start_us, *times.end_us}, member));
  }
  return members;
}

// The calls' recorded figures, each a mean over the calls; nothing unless every call has them.
void add_recorded(ArrivalFigures& figures, const std::vector<CallMembers>& calls,
                  const WorkloadOps& workload) {
  double skew_sum = 0;
  double op_sum = 0;
  for (const CallMembers& call : calls) {
    const std::optional<std::vector<OpInterval>> members = recorded_members(call, workload);
    if (!members) return;
    const CallArrival arrival = call_arrival(*members);
    skew_sum += arrival.skew_us;
    op_sum += arrival.op_us;
  }
  const auto count = static_cast<double>(calls.size());
  figures.recorded_skew_us = skew_sum / count;
  figures.recorded_op_us = op_sum / count;
}

}  // namespace

CallArrival call_arrival(const std::vector<OpInterval>& members) {
  if (members.empty()) throw std::logic_error("a call without members");
  double earliest_start = members.front().start_us;
  double latest_start = earliest_start;
  double shortest = members.front().duration_us();
  for (const OpInterval& member : members) {
    earliest_start = std::min(earliest_start, member.start_us);
    latest_start = std::max(latest_start, member.start_us);
    shortest = std::min(shortest, member.duration_us());
  }
  return {latest_start - earliest_start, shortest};
}

ArrivalFigures arrival_figures(const std::vector<CallMembers>& calls, const WorkloadOps& workload,
                               const std::vector<RankResults>& results) {
  if (calls.empty()) throw std::logic_error("arrival figures of no calls");
  const std::size_t iterations = results.empty() ? 0 : results.front().iterations.size();
  std::vector<double> skews(iterations, 0.0);
  std::vector<double> op_times(iterations, 0.0);
  const auto count = static_cast<double>(calls.size());
  for (std::size_t i = 0; i < iterations; ++i) {
    for (const CallMembers& call : calls) {
      std::vector<OpInterval> members;
      for (const CallMember& member : call)
        members.push_back(
            shared(results.at(member.rank).iterations.at(i).at(member.ordinal), member));
      const CallArrival arrival = call_arrival(members);
      skews[i] += arrival.skew_us / count;
      op_times[i] += arrival.op_us / count;
    }
  }
  ArrivalFigures figures;
  if (iterations > 0) {
    figures.skew_per_call = time_stats(skews);
    figures.op_per_call = time_stats(op_times);
  }
  add_recorded(figures, calls, workload);
  return figures;
}

}  // namespace collbench::replay
