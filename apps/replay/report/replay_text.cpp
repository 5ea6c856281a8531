// The replay's console text.
#include "report/replay_text.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include "core/byte_size.hpp"

namespace collbench::replay {
namespace {

std::size_t op_count(const WorkloadOps& workload) {
  std::size_t ops = 0;
  for (const auto& rank_ops : workload.by_rank) ops += rank_ops.size();
  return ops;
}

void print_kinds(const ReplayFigures& figures, std::ostream& out) {
  fmt::print(out,
             "{:>5}  {:<14} {:<13} {:>6} {:>11} {:>30} {:>11} {:>12} {:>18} {:>9} {:>9} {:>14}\n",
             "comm", "op", "type", "calls", "bytes/call", "time/call us (median [95%])",
             "busbw GB/s", "recorded us", "replayed/recorded", "skew us", "op us", "recorded skew");
  for (const OpKindFigures& kind : figures.kinds) {
    const std::string recorded =
        kind.recorded_us_per_call ? fmt::format("{:.1f}", *kind.recorded_us_per_call) : "-";
    const std::string ratio =
        kind.recorded_us_per_call && *kind.recorded_us_per_call > 0
            ? fmt::format("{:.2f}", kind.time_per_call.p50_us / *kind.recorded_us_per_call)
            : "-";
    const ArrivalFigures& arrival = kind.arrival;
    const std::string recorded_skew =
        arrival.recorded_skew_us ? fmt::format("{:.1f}", *arrival.recorded_skew_us) : "-";
    fmt::print(out,
               "{:>5}  {:<14} {:<13} {:>6} {:>11} {:>30} {:>11.2f} {:>12} {:>18} {:>9.1f} {:>9.1f} "
               "{:>14}\n",
               kind.comm, kind.op, type_text(kind), kind.calls,
               format_byte_size(kind.bytes / std::max<std::uint64_t>(kind.calls, 1)),
               median_text(kind.time_per_call), kind.busbw_gbps, recorded, ratio,
               arrival.skew_per_call.p50_us, arrival.op_per_call.p50_us, recorded_skew);
  }
}

void print_ranks(const ReplayFigures& figures, std::ostream& out) {
  fmt::print(out,
             "window per iteration (the slowest rank's): {} us; while its ops were timed: {} "
             "us\n",
             median_text(figures.window), median_text(figures.window_timing_ops));
  fmt::print(out, "{:>5} {:>12} {:>17} {:>15} {:>19} {:>22} {:>19}\n", "rank", "window us",
             "timing ops us", "ops summed us", "some op running us", "ran concurrently us",
             "recorded window us");
  for (const RankWindowFigures& rank : figures.ranks) {
    const double sum_us = rank.op_time_sum.p50_us;
    const double concurrent_us = sum_us - rank.busy.p50_us;
    const std::string share =
        sum_us > 0 ? fmt::format("{:.1f} ({:.0f}%)", concurrent_us, 100 * concurrent_us / sum_us)
                   : "0";
    fmt::print(out, "{:>5} {:>12.1f} {:>17.1f} {:>15.1f} {:>19.1f} {:>22} {:>19}\n", rank.rank,
               rank.window.p50_us, rank.window_timing_ops.p50_us, sum_us, rank.busy.p50_us, share,
               rank.recorded_window_us ? fmt::format("{:.1f}", *rank.recorded_window_us) : "-");
  }
}

}  // namespace

std::vector<std::string> mismatch_lines(const WorkloadOps& workload, const ReplayFigures& figures) {
  std::vector<std::string> lines;
  for (std::size_t rank = 0; rank < figures.ops.size(); ++rank) {
    for (std::size_t ordinal = 0; ordinal < figures.ops[rank].size(); ++ordinal) {
      const std::uint64_t wrong = figures.ops[rank][ordinal].mismatches;
      if (wrong == 0) continue;
      lines.push_back(fmt::format(
          "rank {}: {} elements of {} differ from the expected values (op {} of the rank)", rank,
          wrong, describe_op(workload, workload.by_rank[rank][ordinal]), ordinal));
    }
  }
  return lines;
}

void print_combinations_line(const std::vector<ReplayCombination>& combinations,
                             std::ostream& out) {
  if (combinations.size() < 2) return;
  std::vector<std::string> names;
  for (const ReplayCombination& combination : combinations) names.push_back(combination.name());
  fmt::print(out,
             "# {} combinations of the swept settings, one after another, each with its own "
             "communicators and warm-up: {}\n",
             combinations.size(), fmt::join(names, ", "));
}

void print_combination_header(std::size_t index, std::size_t count,
                              const ReplayCombination& combination, std::ostream& out) {
  fmt::print(out, "# combination {} of {}: {}\n", index + 1, count, combination.name());
}

std::string choice_text(const CombinationChoice& choice) {
  if (choice.fastest == 0) return "the first is fastest";
  return fmt::format("{}: {} us against {} us, {:.2f}x faster{}", choice.fastest_name,
                     median_text(choice.fastest_time), median_text(choice.default_time),
                     choice.speedup, choice.within_noise ? ", within noise" : "");
}

void print_combination_summary(const CombinationSummary& summary, const std::string& default_name,
                               std::ostream& out) {
  fmt::print(out,
             "fastest combination (time per call, the window's per iteration; median [95%]) "
             "against the first ({}):\n",
             default_name);
  for (const CombinationChoice& row : summary.rows)
    fmt::print(out, "  {}: {}\n", row.what, choice_text(row));
  fmt::print(out, "  {}: {}\n", summary.window.what, choice_text(summary.window));
}

std::string median_text(const TimeStats& time) {
  if (!time.has_interval()) return fmt::format("{:.1f}", time.p50_us);
  return fmt::format("{:.1f} [{:.1f}, {:.1f}]", time.p50_us, time.p50_lo_us, time.p50_hi_us);
}

void print_replay_header(const WorkloadOps& workload, const ReplayRunInfo& info,
                         const std::string& processes, std::ostream& out) {
  const WorkloadHeader& header = workload.header;
  fmt::print(
      out, "# collbench_replay run {} | {} ranks, {} communicators, {} ops | {}{}\n", workload.path,
      header.world_size, workload.communicators.count(), op_count(workload), header.source,
      header.rescaled ? fmt::format(", rescaled from {} ranks", header.rescaled->from_world_size)
                      : "");
  fmt::print(out, "# recorded with NCCL {}, replayed with NCCL {} | host {} | {} | driver {}{}\n",
             header.nccl_version.value_or("unknown"), info.origin.nccl_version, info.origin.host,
             info.origin.gpu_name, info.origin.driver, processes.empty() ? "" : " | " + processes);
  fmt::print(out, "# {} warm-up and {} timed iterations of the whole window{}{}\n", info.warmup,
             info.iters, info.gaps ? "; recorded gaps kept as GPU delays" : "",
             info.check ? "; then one checked iteration" : "");
}

void print_replay_figures(const ReplayFigures& figures, const ReplayRunInfo& info,
                          std::ostream& out) {
  if (!info.gated) fmt::print(out, "# iterations not start-gated: {}\n", info.ungated_reason);
  if (info.no_kernel_trace.empty()) {
    fmt::print(out,
               "# op times: each step's kernels on the GPU (CUPTI), in iterations of their own; "
               "the window from plain ones\n");
  } else {
    fmt::print(out,
               "# op times: CUDA events around each step (no kernel trace: {}); the window from "
               "plain iterations\n",
               info.no_kernel_trace);
  }
  print_kinds(figures, out);
  print_ranks(figures, out);
}

}  // namespace collbench::replay
