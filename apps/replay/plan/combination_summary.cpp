// The fastest combination per row and for the window.
#include "plan/combination_summary.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace collbench::replay {
namespace {

// The row of `figures` that is `row` of another combination's replay of the same workload.
const OpKindFigures& same_row(const ReplayFigures& figures, const OpKindFigures& row) {
  for (const OpKindFigures& kind : figures.kinds) {
    if (kind.comm == row.comm && kind.op == row.op && kind.dtype == row.dtype &&
        kind.redop == row.redop)
      return kind;
  }
  throw std::logic_error("a combination's replay without the row " + describe_row(row));
}

// The choice among `times` (one per combination, the default first).
CombinationChoice choose(std::string what, const std::vector<TimeStats>& times) {
  CombinationChoice choice;
  choice.what = std::move(what);
  for (std::size_t i = 1; i < times.size(); ++i) {
    if (times[i].p50_us < times[choice.fastest].p50_us) choice.fastest = i;
  }
  choice.fastest_time = times[choice.fastest];
  choice.default_time = times.front();
  if (choice.fastest_time.p50_us > 0)
    choice.speedup = choice.default_time.p50_us / choice.fastest_time.p50_us;
  choice.within_noise = intervals_overlap(choice.fastest_time, choice.default_time);
  return choice;
}

}  // namespace

bool intervals_overlap(const TimeStats& a, const TimeStats& b) {
  if (!a.has_interval() || !b.has_interval()) return true;
  return a.p50_lo_us <= b.p50_hi_us && b.p50_lo_us <= a.p50_hi_us;
}

std::string describe_row(const OpKindFigures& kind) {
  return fmt::format("comm {} {} {}", kind.comm, kind.op, type_text(kind));
}

CombinationSummary summarize_combinations(const std::vector<CombinationRun>& runs) {
  if (runs.empty()) throw std::logic_error("a summary of no combination");
  const auto named = [&runs](CombinationChoice choice) {
    choice.fastest_name = runs[choice.fastest].combination.name();
    return choice;
  };
  CombinationSummary summary;
  for (const OpKindFigures& row : runs.front().figures.kinds) {
    std::vector<TimeStats> times;
    for (const CombinationRun& run : runs)
      times.push_back(same_row(run.figures, row).time_per_call);
    summary.rows.push_back(named(choose(describe_row(row), times)));
  }
  std::vector<TimeStats> windows;
  for (const CombinationRun& run : runs) windows.push_back(run.figures.window);
  summary.window = named(choose("window", windows));
  return summary;
}

}  // namespace collbench::replay
