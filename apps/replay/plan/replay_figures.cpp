// The replay's statistics.
#include "plan/replay_figures.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "plan/recorded_times.hpp"
#include "plan/registry_op.hpp"
#include "summary/workload_summary.hpp"

namespace collbench::replay {
namespace {

double bandwidth_gbps(double bytes, double time_us) {
  return time_us > 0 ? bytes / (time_us * 1e-6) / 1e9 : 0;
}

// A collective (sender and receiver -1) or a send/recv pair (their communicator ranks).
struct InstanceId {
  int comm;
  std::int64_t seq;
  int sender;
  int receiver;
  bool operator<(const InstanceId& o) const {
    return std::tie(comm, seq, sender, receiver) < std::tie(o.comm, o.seq, o.sender, o.receiver);
  }
};

// One call across its members: each iteration's time is its slowest member's.
struct Instance {
  std::string kind;
  std::vector<double> times_us;
  double bus_bytes = 0;
  std::uint64_t bytes = 0;
  std::optional<double> recorded_us;
  bool all_recorded = true;
};

std::string kind_name(ReplayOp op) {
  return spec_of(op).point_to_point ? "send/recv" : std::string(name_of(op));
}

InstanceId instance_of(const WorkloadOp& op, int comm_rank) {
  if (op.op == ReplayOp::send) return {op.comm, op.seq, comm_rank, *op.peer};
  if (op.op == ReplayOp::recv) return {op.comm, op.seq, *op.peer, comm_rank};
  return {op.comm, op.seq, -1, -1};
}

void add_member(Instance& instance, const WorkloadOp& op, const std::vector<double>& durations_us,
                const OpFigures& figures, double bus_bytes) {
  instance.kind = kind_name(op.op);
  instance.times_us.resize(durations_us.size(), 0.0);
  for (std::size_t i = 0; i < durations_us.size(); ++i)
    instance.times_us[i] = std::max(instance.times_us[i], durations_us[i]);
  instance.bus_bytes = std::max(instance.bus_bytes, bus_bytes);
  instance.bytes = std::max(instance.bytes, figures.bytes);
  instance.all_recorded = instance.all_recorded && figures.recorded_us.has_value();
  if (figures.recorded_us)
    instance.recorded_us = std::max(instance.recorded_us.value_or(0.0), *figures.recorded_us);
}

OpFigures op_figures(const WorkloadOp& op, const WorkloadOps& workload,
                     const std::vector<double>& durations_us, double bus_bytes,
                     std::uint64_t mismatches) {
  OpFigures figures;
  figures.time = time_stats(durations_us);
  figures.busbw_gbps = bandwidth_gbps(bus_bytes, figures.time.p50_us);
  figures.bytes = op_bytes(op, workload.communicators);
  figures.recorded_us = recorded_duration_us(op.times);
  figures.mismatches = mismatches;
  return figures;
}

std::vector<double> durations_of(const RankResults& results, std::size_t ordinal) {
  std::vector<double> durations;
  for (const std::vector<OpInterval>& iteration : results.iterations)
    durations.push_back(iteration[ordinal].duration_us());
  return durations;
}

std::optional<double> recorded_window_us(const std::vector<WorkloadOp>& ops) {
  std::optional<RecordedSpan> window;
  for (const WorkloadOp& op : ops) {
    const std::optional<RecordedSpan> span = recorded_span(op.times);
    if (!span) continue;
    if (!window) window = span;
    window->begin_us = std::min(window->begin_us, span->begin_us);
    window->end_us = std::max(window->end_us, span->end_us);
  }
  if (!window) return std::nullopt;
  return window->end_us - window->begin_us;
}

RankWindowFigures rank_window(int rank, const std::vector<WorkloadOp>& ops,
                              const RankResults& results) {
  std::vector<double> sums, busy;
  for (const std::vector<OpInterval>& iteration : results.iterations) {
    double sum_us = 0;
    for (const OpInterval& interval : iteration) sum_us += interval.duration_us();
    sums.push_back(sum_us);
    busy.push_back(covered_us(iteration));
  }
  return {rank, time_stats(results.window_us), time_stats(sums), time_stats(busy),
          recorded_window_us(ops)};
}

// Per communicator and kind, the calls of one iteration summed.
std::vector<OpKindFigures> kind_figures(const std::map<InstanceId, Instance>& instances,
                                        int iterations) {
  struct Totals {
    OpKindFigures row;
    std::vector<double> time_us;
    double bus_bytes = 0;
    double recorded_us = 0;
    bool all_recorded = true;
  };
  std::map<std::pair<int, std::string>, Totals> by_kind;
  for (const auto& [id, instance] : instances) {
    Totals& totals = by_kind[{id.comm, instance.kind}];
    totals.row.comm = id.comm;
    totals.row.op = instance.kind;
    ++totals.row.calls;
    totals.row.bytes += instance.bytes;
    totals.time_us.resize(static_cast<std::size_t>(iterations), 0.0);
    for (std::size_t i = 0; i < totals.time_us.size(); ++i)
      totals.time_us[i] += instance.times_us[i];
    totals.bus_bytes += instance.bus_bytes;
    totals.all_recorded = totals.all_recorded && instance.all_recorded;
    totals.recorded_us += instance.recorded_us.value_or(0.0);
  }
  std::vector<OpKindFigures> rows;
  for (auto& [key, totals] : by_kind) {
    const auto calls = static_cast<double>(totals.row.calls);
    std::vector<double> per_call_us, busbw_gbps;
    for (double time_us : totals.time_us) {
      per_call_us.push_back(time_us / calls);
      busbw_gbps.push_back(bandwidth_gbps(totals.bus_bytes, time_us));
    }
    totals.row.time_per_call = time_stats(per_call_us);
    totals.row.busbw_gbps = percentile(busbw_gbps, 50);
    if (totals.all_recorded) totals.row.recorded_us_per_call = totals.recorded_us / calls;
    rows.push_back(totals.row);
  }
  return rows;
}

}  // namespace

double covered_us(std::vector<OpInterval> intervals) {
  std::sort(intervals.begin(), intervals.end(),
            [](const OpInterval& a, const OpInterval& b) { return a.start_us < b.start_us; });
  double covered = 0;
  double reached = 0;  // the end of what is counted so far
  bool first = true;
  for (const OpInterval& interval : intervals) {
    const double from = first ? interval.start_us : std::max(interval.start_us, reached);
    if (interval.end_us > from) covered += interval.end_us - from;
    reached = first ? interval.end_us : std::max(reached, interval.end_us);
    first = false;
  }
  return covered;
}

ReplayFigures replay_figures(const WorkloadOps& workload, const std::vector<RankResults>& results) {
  ReplayFigures figures;
  figures.iterations = results.empty() ? 0 : static_cast<int>(results.front().window_us.size());
  std::map<InstanceId, Instance> instances;
  std::vector<double> slowest_window_us(static_cast<std::size_t>(figures.iterations), 0.0);
  for (int rank = 0; rank < workload.world_size(); ++rank) {
    const std::vector<WorkloadOp>& ops = workload.by_rank[static_cast<std::size_t>(rank)];
    const RankResults& own = results[static_cast<std::size_t>(rank)];
    std::vector<OpFigures>& rank_figures = figures.ops.emplace_back();
    for (std::size_t ordinal = 0; ordinal < ops.size(); ++ordinal) {
      const WorkloadOp& op = ops[ordinal];
      const int comm_rank = workload.comm_rank(op);
      const double bus_bytes = op_bus_bytes(op, workload.comm_size(op), comm_rank);
      const std::vector<double> durations_us = durations_of(own, ordinal);
      rank_figures.push_back(
          op_figures(op, workload, durations_us, bus_bytes, own.mismatches[ordinal]));
      add_member(instances[instance_of(op, comm_rank)], op, durations_us, rank_figures.back(),
                 bus_bytes);
    }
    figures.ranks.push_back(rank_window(rank, ops, own));
    for (std::size_t i = 0; i < slowest_window_us.size(); ++i)
      slowest_window_us[i] = std::max(slowest_window_us[i], own.window_us[i]);
  }
  figures.kinds = kind_figures(instances, figures.iterations);
  figures.window = time_stats(slowest_window_us);
  return figures;
}

}  // namespace collbench::replay
