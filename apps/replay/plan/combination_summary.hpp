// Which setting: after the workload was replayed under several combinations of the communicator
// axes, per communicator-op row and for the whole window, the combination with the shortest median
// time and how it compares with the default (the first combination): the ratio of the medians,
// and whether the two medians' intervals overlap (then the difference is within noise: the
// replay cannot tell them apart). A median without an interval (fewer than 6 iterations) cannot
// be told apart from another either.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "plan/replay_combinations.hpp"
#include "plan/replay_figures.hpp"

namespace collbench::replay {

// One combination's replay: what it ran under, and its figures.
struct CombinationRun {
  ReplayCombination combination;
  ReplayFigures figures;
};

struct CombinationChoice {
  std::string what;          // "comm 1 all_reduce float sum", or "window"
  std::size_t fastest = 0;   // the combination's index
  std::string fastest_name;  // its name (ReplayCombination::name)
  TimeStats fastest_time;    // per call (a row) or per iteration (the window)
  TimeStats default_time;    // the first combination's
  double speedup = 1;        // the default's median / the fastest's
  bool within_noise = true;  // the intervals overlap (or one has none)
};

struct CombinationSummary {
  std::vector<CombinationChoice> rows;  // in the first combination's row order
  CombinationChoice window;
};

// Whether the median intervals of `a` and `b` overlap; true when either has none.
bool intervals_overlap(const TimeStats& a, const TimeStats& b);

// `runs`: each combination's, in combination order (at least one), of one workload.
CombinationSummary summarize_combinations(const std::vector<CombinationRun>& runs);

// "comm 1 all_reduce float sum": a row as the summary names it.
std::string describe_row(const OpKindFigures& kind);

}  // namespace collbench::replay
