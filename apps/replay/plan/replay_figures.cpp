// The replay's statistics.
#include "plan/replay_figures.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include "plan/issue_plan.hpp"
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

// A row: communicator, op ("send/recv" for pairs), dtype, reduction (none for ops without one).
struct KindKey {
  int comm;
  std::string op;
  DataType dtype;
  ReduceOp redop;
  bool operator<(const KindKey& o) const {
    return std::tie(comm, op, dtype, redop) < std::tie(o.comm, o.op, o.dtype, o.redop);
  }
};

// One call's size: nccl-tests' size and the bus bytes, its busiest member's.
struct CallSize {
  std::uint64_t bytes = 0;
  double bus_bytes = 0;
};

// One rank's steps holding ops of one row, each (step, stream) once: a group's ops share its time;
// and the row's calls the rank takes part in (a send/recv row's pairs: only some of them).
struct RankSteps {
  std::map<std::pair<std::size_t, int>, std::size_t> op_of_step;  // an op of the step, for its time
  std::map<std::pair<std::size_t, int>, double> recorded_us;      // its ops' longest recorded time
  std::set<InstanceId> calls;
  bool all_recorded = true;
};

// One row: its calls, and per iteration the slowest rank's summed step time over its own calls.
struct KindTotals {
  ReplayOp op = ReplayOp::all_reduce;  // one of its ops (a pair's send or recv)
  std::set<std::uint64_t> counts;      // NCCL's count of each op
  std::set<int> roots;
  std::uint64_t mismatches = 0;
  std::map<InstanceId, CallSize> calls;
  std::map<InstanceId, CallMembers> members;  // every rank's op in each call
  std::vector<double> slowest_per_call_us;
  double slowest_recorded_per_call_us = 0;
  bool all_recorded = true;
};

KindKey kind_key(const WorkloadOp& op) {
  const std::string name =
      spec_of(op.op).point_to_point ? "send/recv" : std::string(name_of(op.op));
  return {op.comm, name, op.dtype, op.redop.value_or(ReduceOp::none)};
}

// What the row learns from one op beside its time: kind, count, root, wrong elements.
void add_op(KindTotals& totals, const WorkloadOp& op, std::uint64_t mismatches) {
  totals.op = op.op;
  totals.counts.insert(op.count);
  if (op.root) totals.roots.insert(*op.root);
  totals.mismatches += mismatches;
}

InstanceId instance_of(const WorkloadOp& op, int comm_rank) {
  if (op.op == ReplayOp::send) return {op.comm, op.seq, comm_rank, *op.peer};
  if (op.op == ReplayOp::recv) return {op.comm, op.seq, *op.peer, comm_rank};
  return {op.comm, op.seq, -1, -1};
}

void add_call(CallSize& call, const OpFigures& figures, double bus_bytes) {
  call.bytes = std::max(call.bytes, figures.bytes);
  call.bus_bytes = std::max(call.bus_bytes, bus_bytes);
}

void add_step(RankSteps& steps, const OpPlacement& place, std::size_t ordinal,
              const std::optional<double>& recorded_us) {
  const std::pair<std::size_t, int> step{place.step, place.stream};
  steps.op_of_step.emplace(step, ordinal);
  steps.all_recorded = steps.all_recorded && recorded_us.has_value();
  double& longest = steps.recorded_us[step];
  longest = std::max(longest, recorded_us.value_or(0.0));
}

// The rank's summed step times of the row, over the calls it takes part in, enter the slowest.
void add_rank(KindTotals& totals, const RankSteps& steps, const RankResults& results) {
  const auto calls = static_cast<double>(std::max<std::size_t>(steps.calls.size(), 1));
  totals.slowest_per_call_us.resize(results.iterations.size(), 0.0);
  for (std::size_t i = 0; i < results.iterations.size(); ++i) {
    double sum_us = 0;
    for (const auto& [step, ordinal] : steps.op_of_step)
      sum_us += results.iterations[i][ordinal].duration_us();
    totals.slowest_per_call_us[i] = std::max(totals.slowest_per_call_us[i], sum_us / calls);
  }
  double recorded_us = 0;
  for (const auto& [step, longest] : steps.recorded_us) recorded_us += longest;
  totals.slowest_recorded_per_call_us =
      std::max(totals.slowest_recorded_per_call_us, recorded_us / calls);
  totals.all_recorded = totals.all_recorded && steps.all_recorded;
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

// Its ops' times summed (a group's once per stream: its ops share the time) against the time at
// least one of them ran.
RankWindowFigures rank_window(int rank, const std::vector<WorkloadOp>& ops,
                              const RankIssuePlan& plan, const RankResults& results) {
  std::set<std::pair<std::size_t, int>> counted;
  std::vector<std::size_t> once;  // one op of each step on each of its streams
  for (std::size_t ordinal = 0; ordinal < plan.ops.size(); ++ordinal) {
    if (counted.insert({plan.ops[ordinal].step, plan.ops[ordinal].stream}).second)
      once.push_back(ordinal);
  }
  std::vector<double> sums, busy;
  for (const std::vector<OpInterval>& iteration : results.iterations) {
    double sum_us = 0;
    for (std::size_t ordinal : once) sum_us += iteration[ordinal].duration_us();
    sums.push_back(sum_us);
    busy.push_back(covered_us(iteration));
  }
  return {rank,
          time_stats(results.plain_window_us),
          time_stats(results.window_us),
          time_stats(sums),
          time_stats(busy),
          recorded_window_us(ops)};
}

double median_or_zero(const std::vector<double>& values) {
  return values.empty() ? 0 : percentile(values, 50);
}

// The row's names: the key, and what every call shares (count, root), else nothing.
OpKindFigures named_row(const KindKey& key, const KindTotals& totals) {
  OpKindFigures row;
  row.comm = key.comm;
  row.op = key.op;
  row.registry_op = std::string(registry_entry(totals.op).name);
  row.dtype = key.dtype;
  if (spec_of(totals.op).reduces) row.redop = key.redop;
  row.roots.assign(totals.roots.begin(), totals.roots.end());
  if (totals.counts.size() == 1) row.count = *totals.counts.begin();
  row.mismatches = totals.mismatches;
  return row;
}

OpKindFigures kind_row(const KindKey& key, const KindTotals& totals) {
  OpKindFigures row = named_row(key, totals);
  row.calls = totals.calls.size();
  double bus_bytes = 0;
  for (const auto& [id, call] : totals.calls) {
    row.bytes += call.bytes;
    bus_bytes += call.bus_bytes;
  }
  const auto calls = static_cast<double>(row.calls);
  const double bytes_per_call = static_cast<double>(row.bytes) / calls;
  const double bus_bytes_per_call = bus_bytes / calls;
  std::vector<double> algbw_gbps, busbw_gbps;
  for (double per_call_us : totals.slowest_per_call_us) {
    algbw_gbps.push_back(bandwidth_gbps(bytes_per_call, per_call_us));
    busbw_gbps.push_back(bandwidth_gbps(bus_bytes_per_call, per_call_us));
  }
  row.time_per_call = time_stats(totals.slowest_per_call_us);
  row.algbw_gbps = median_or_zero(algbw_gbps);
  row.busbw_gbps = median_or_zero(busbw_gbps);
  if (row.time_per_call.has_interval()) {
    row.busbw_lo_gbps = bandwidth_gbps(bus_bytes_per_call, row.time_per_call.p50_hi_us);
    row.busbw_hi_gbps = bandwidth_gbps(bus_bytes_per_call, row.time_per_call.p50_lo_us);
  }
  if (totals.all_recorded) row.recorded_us_per_call = totals.slowest_recorded_per_call_us;
  return row;
}

// One rank's ops: their figures, and their calls and steps in the rows.
void add_rank_ops(int rank, const WorkloadOps& workload, const RankIssuePlan& plan,
                  const RankResults& results, std::vector<OpFigures>& figures,
                  std::map<KindKey, KindTotals>& kinds) {
  const std::vector<WorkloadOp>& ops = workload.by_rank[static_cast<std::size_t>(rank)];
  // Each op's row and call, and per row the calls each launch (step and stream) of this rank holds.
  std::vector<KindKey> keys;
  std::vector<InstanceId> calls;
  std::map<std::tuple<KindKey, std::size_t, int>, std::set<InstanceId>> launch_calls;
  for (std::size_t ordinal = 0; ordinal < ops.size(); ++ordinal) {
    keys.push_back(kind_key(ops[ordinal]));
    calls.push_back(instance_of(ops[ordinal], workload.comm_rank(ops[ordinal])));
    const OpPlacement& place = plan.ops[ordinal];
    launch_calls[{keys.back(), place.step, place.stream}].insert(calls.back());
  }
  std::map<KindKey, RankSteps> steps;
  for (std::size_t ordinal = 0; ordinal < ops.size(); ++ordinal) {
    const WorkloadOp& op = ops[ordinal];
    const OpPlacement& place = plan.ops[ordinal];
    const KindKey& key = keys[ordinal];
    const InstanceId& call = calls[ordinal];
    const double bus_bytes = op_bus_bytes(op, workload.comm_size(op), workload.comm_rank(op));
    figures.push_back(op_figures(op, workload, durations_of(results, ordinal), bus_bytes,
                                 results.mismatches[ordinal]));
    add_op(kinds[key], op, results.mismatches[ordinal]);
    add_call(kinds[key].calls[call], figures.back(), bus_bytes);
    kinds[key].members[call].push_back({static_cast<std::size_t>(rank), ordinal,
                                        launch_calls[{key, place.step, place.stream}].size()});
    add_step(steps[key], place, ordinal, figures.back().recorded_us);
    steps[key].calls.insert(call);
  }
  for (const auto& [key, rank_steps] : steps) add_rank(kinds[key], rank_steps, results);
}

}  // namespace

std::string type_text(const OpKindFigures& kind) {
  const std::string dtype(name_of(kind.dtype));
  return kind.redop ? dtype + " " + std::string(name_of(*kind.redop)) : dtype;
}

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
  std::map<KindKey, KindTotals> kinds;
  std::vector<double> slowest_window_us(static_cast<std::size_t>(figures.iterations), 0.0);
  std::vector<double> slowest_timed_window_us = slowest_window_us;
  for (int rank = 0; rank < workload.world_size(); ++rank) {
    const std::vector<WorkloadOp>& ops = workload.by_rank[static_cast<std::size_t>(rank)];
    const RankResults& own = results[static_cast<std::size_t>(rank)];
    const RankIssuePlan plan = plan_rank_issue(ops, workload.communicators);
    add_rank_ops(rank, workload, plan, own, figures.ops.emplace_back(), kinds);
    figures.ranks.push_back(rank_window(rank, ops, plan, own));
    if (own.plain_window_us.size() != own.window_us.size())
      throw std::logic_error("a rank's results without a plain window per timed iteration");
    for (std::size_t i = 0; i < slowest_window_us.size(); ++i) {
      slowest_window_us[i] = std::max(slowest_window_us[i], own.plain_window_us[i]);
      slowest_timed_window_us[i] = std::max(slowest_timed_window_us[i], own.window_us[i]);
    }
  }
  for (const auto& [key, totals] : kinds) {
    std::vector<CallMembers> calls;
    for (const auto& [id, members] : totals.members) calls.push_back(members);
    figures.kinds.push_back(kind_row(key, totals));
    figures.kinds.back().arrival = arrival_figures(calls, workload, results);
  }
  figures.window = time_stats(slowest_window_us);
  figures.window_timing_ops = time_stats(slowest_timed_window_us);
  return figures;
}

}  // namespace collbench::replay
