// The replay's report rows.
#include "report/replay_rows.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/config_column.hpp"
#include "core/data_type.hpp"
#include "io/path_names.hpp"
#include "reports/schema.hpp"

namespace collbench::replay {
namespace {

constexpr const char* kReplayAlgo = "nccl";  // the replay runs NCCL's own collectives
constexpr std::string_view kWorkloadEnding = ".jsonl";

// ';' separates the config's parts and '=' its keys from values: neither may sit in a value.
std::string config_safe(std::string text) {
  std::replace(text.begin(), text.end(), ';', '|');
  std::replace(text.begin(), text.end(), '=', '|');
  return text;
}

// The end of the run of one step that starts at `first` (three ranks or more), else `first`.
std::size_t run_end(const std::vector<int>& ranks, std::size_t first) {
  if (first + 2 >= ranks.size()) return first;
  const int step = ranks[first + 1] - ranks[first];
  if (step <= 0 || ranks[first + 2] - ranks[first + 1] != step) return first;
  std::size_t last = first + 2;
  while (last + 1 < ranks.size() && ranks[last + 1] - ranks[last] == step) ++last;
  return last;
}

// What every row of the run's config carries after its own parts: NCCL's settings, --gaps, and
// op times from events (not paired with kernel times by compare).
void append_run_config(std::string& config, const ReplayRunInfo& info) {
  append_config(config, info.nccl_config);
  if (info.gaps) append_config(config, "gaps=1");
  if (!info.no_kernel_trace.empty()) append_config(config, "op_times=events");
}

// The columns every row of a replay fills alike: origin, iterations, how they were timed.
report::ReportRow run_row(const ReplayRunInfo& info, const std::string& timestamp) {
  report::ReportRow row;
  row.timestamp = timestamp;
  row.origin = info.origin;
  row.algo = kReplayAlgo;
  row.in_place = false;  // every op has a send and a receive buffer of its own
  row.warmup = info.warmup;
  row.iters = info.iters;
  row.agg_iters = 1;
  row.graph = 0;
  row.stop = report::kStopFixed;
  return row;
}

void mark_wrong(report::ReportRow& row, std::uint64_t mismatches, const std::string& what) {
  row.wrong_elements = mismatches;
  if (mismatches == 0) return;
  row.status = report::kStatusError;
  row.reason =
      fmt::format("--check: {} elements of {} differ from the expected values", mismatches, what);
}

std::string kind_extra(const OpKindFigures& kind) {
  std::string extra = fmt::format("calls={}", kind.calls);
  if (kind.recorded_us_per_call)
    append_config(extra, fmt::format("recorded_us_per_call={:.3f}", *kind.recorded_us_per_call));
  if (kind.roots.size() > 1)
    append_config(extra, fmt::format("roots={}", rank_list_text(kind.roots)));
  const ArrivalFigures& arrival = kind.arrival;
  append_config(extra, fmt::format("skew_us={:.3f};op_us={:.3f}", arrival.skew_per_call.p50_us,
                                   arrival.op_per_call.p50_us));
  if (arrival.recorded_skew_us) {
    append_config(extra, fmt::format("recorded_skew_us={:.3f};recorded_op_us={:.3f}",
                                     *arrival.recorded_skew_us, *arrival.recorded_op_us));
  }
  return extra;
}

// The rank whose window's median is the longest: the one the window row describes.
const RankWindowFigures* slowest_rank(const ReplayFigures& figures) {
  const auto slowest = std::max_element(figures.ranks.begin(), figures.ranks.end(),
                                        [](const RankWindowFigures& a, const RankWindowFigures& b) {
                                          return a.window.p50_us < b.window.p50_us;
                                        });
  return slowest == figures.ranks.end() ? nullptr : &*slowest;
}

// Its ops' time summed, the time some op ran, and what ran concurrently: the sum beyond that.
std::string window_extra(const ReplayFigures& figures) {
  std::uint64_t calls = 0;
  for (const OpKindFigures& kind : figures.kinds) calls += kind.calls;
  std::string extra = fmt::format("calls={}", calls);
  const RankWindowFigures* rank = slowest_rank(figures);
  if (!rank) return extra;
  const double summed_us = rank->op_time_sum.p50_us;
  const double busy_us = rank->busy.p50_us;
  append_config(
      extra, fmt::format("slowest_rank={};rank_window_us={:.3f};window_timing_ops_us={:.3f};"
                         "ops_summed_us={:.3f};busy_us={:.3f};concurrent_us={:.3f}",
                         rank->rank, rank->window.p50_us, rank->window_timing_ops.p50_us, summed_us,
                         busy_us, summed_us - busy_us));
  if (rank->recorded_window_us)
    append_config(extra, fmt::format("recorded_window_us={:.3f}", *rank->recorded_window_us));
  return extra;
}

}  // namespace

std::string workload_name(const std::vector<std::string>& inputs) {
  if (inputs.empty()) return "";
  std::string name = base_name(inputs.front());
  if (name.size() > kWorkloadEnding.size() &&
      name.compare(name.size() - kWorkloadEnding.size(), kWorkloadEnding.size(), kWorkloadEnding) ==
          0) {
    name.resize(name.size() - kWorkloadEnding.size());
  }
  if (inputs.size() > 1) name += fmt::format("+{}", inputs.size() - 1);
  return config_safe(name);
}

std::string rank_list_text(const std::vector<int>& ranks) {
  std::vector<std::string> parts;
  for (std::size_t first = 0; first < ranks.size();) {
    const std::size_t last = run_end(ranks, first);
    const int step = last > first ? ranks[first + 1] - ranks[first] : 0;
    if (last == first) {
      parts.push_back(fmt::format("{}", ranks[first]));
    } else if (step == 1) {
      parts.push_back(fmt::format("{}-{}", ranks[first], ranks[last]));
    } else {
      parts.push_back(fmt::format("{}-{}/{}", ranks[first], ranks[last], step));
    }
    first = last + 1;
  }
  return fmt::format("{}", fmt::join(parts, ","));
}

std::string kind_config(const WorkloadOps& workload, const OpKindFigures& kind,
                        const ReplayRunInfo& info) {
  std::string config = fmt::format("replay={};comm={};comm_ranks={}", info.workload_name, kind.comm,
                                   rank_list_text(workload.communicators.at(kind.comm).ranks));
  append_run_config(config, info);
  return config;
}

report::ReportRow kind_report_row(const WorkloadOps& workload, const OpKindFigures& kind,
                                  const ReplayRunInfo& info, const std::string& timestamp) {
  report::ReportRow row = run_row(info, timestamp);
  row.op = kind.registry_op;
  row.ranks = workload.communicators.size_of(kind.comm);
  row.dtype = std::string(name_of(kind.dtype));
  row.redop = std::string(name_of(kind.redop.value_or(ReduceOp::none)));
  row.root = kind.roots.size() == 1 ? kind.roots.front() : -1;
  row.bytes = kind.bytes;
  row.count = kind.count.value_or(0);
  row.config = kind_config(workload, kind, info);
  row.time = kind.time_per_call;
  row.algbw_gbps = kind.algbw_gbps;
  row.busbw_gbps = kind.busbw_gbps;
  row.busbw_gbps_lo = kind.busbw_lo_gbps;
  row.busbw_gbps_hi = kind.busbw_hi_gbps;
  row.extra = kind_extra(kind);
  mark_wrong(row, kind.mismatches, fmt::format("its {} calls", kind.registry_op));
  return row;
}

report::ReportRow window_report_row(const WorkloadOps& workload, const ReplayFigures& figures,
                                    const ReplayRunInfo& info, const std::string& timestamp) {
  report::ReportRow row = run_row(info, timestamp);
  row.op = report::kReplayWindowOp;
  row.ranks = workload.world_size();
  row.dtype = std::string(name_of(DataType::uint8));  // the window moves bytes of every dtype
  row.redop = std::string(name_of(ReduceOp::none));
  row.root = -1;
  std::uint64_t mismatches = 0;
  for (const OpKindFigures& kind : figures.kinds) {
    row.bytes += kind.bytes;
    mismatches += kind.mismatches;
  }
  row.count = row.bytes;
  row.config = fmt::format("replay={}", info.workload_name);
  append_run_config(row.config, info);
  row.time = figures.window;  // the slowest rank's per iteration; no bandwidth: ops of all kinds
  row.extra = window_extra(figures);
  mark_wrong(row, mismatches, "the window's ops");
  return row;
}

std::vector<report::ReportRow> replay_report_rows(const WorkloadOps& workload,
                                                  const ReplayFigures& figures,
                                                  const ReplayRunInfo& info,
                                                  const std::string& timestamp) {
  std::vector<report::ReportRow> rows;
  for (const OpKindFigures& kind : figures.kinds)
    rows.push_back(kind_report_row(workload, kind, info, timestamp));
  rows.push_back(window_report_row(workload, figures, info, timestamp));
  return rows;
}

}  // namespace collbench::replay
