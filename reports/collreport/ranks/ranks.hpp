// `collreport ranks`: which rank of a sample file's (collbench --json) collectives came late,
// judged case by case with the shared arrival rule (reports/lib/arrival.hpp), and which ranks are
// late in enough cases to name.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "reports/arrival.hpp"
#include "reports/report_row.hpp"
#include "reports/sample_file.hpp"

namespace collbench::collreport {

// The arrival rule for a collbench sweep: its batches are start-gated rounds, so a rank's host
// lateness is when it enqueued a whole round, which in clean runs drifts by up to about a
// millisecond between processes (arrival.hpp, host_floor_us).
inline stats::ArrivalRule sweep_arrival_rule() {
  stats::ArrivalRule rule;
  rule.host_floor_us = 1000;
  return rule;
}

struct RanksOptions {
  stats::ArrivalRule rule = sweep_arrival_rule();
  // A rank is named (exit 1) when late in at least max(2, min_share x the judged cases) of them
  // (all of them when fewer than 2 are judged). A fault (a starved CPU, a busy GPU) lasts over
  // many cases; a rank late in one case among many is noise, listed as sporadic.
  double min_share = 0.25;
};

// One case of the file with two or more ranks and samples.
struct CaseRanks {
  report::ReportRow row;
  unsigned line = 0;
  // The op ends with the last arrival on every rank (stats::finishes_together) and the ranks form
  // one communicator (no --split groups, which end apart); other cases are listed, not judged.
  bool judged = false;
  std::string why_not_judged;                // "not judged: ..." when not judged
  double op_time_us = 0;                     // the median per-operation time of the case
  std::vector<stats::RankArrival> arrivals;  // index = rank; judged cases only
  stats::ArrivalJudgement judgement;         // judged cases only
};

// One rank over every judged case that has it.
struct RankSummary {
  int rank = 0;
  std::size_t judged = 0;  // judged cases it took part in
  std::size_t late = 0;    // cases in which it was late, any cause
  std::size_t late_host = 0;
  std::size_t late_gpu = 0;
  std::size_t late_unknown = 0;
  std::size_t waiting = 0;                  // cases in which it waited for a late rank
  double mean_gpu_lateness_us = 0;          // the mean of its GPU lateness over those cases
  bool named = false;                       // late in enough cases (RanksOptions::min_share)
  stats::LateCause dominant_cause() const;  // the most frequent cause of its late cases
};

struct RanksAnalysis {
  std::vector<CaseRanks> cases;  // cases with more than one rank and samples, in file order
  std::size_t single_rank_cases = 0;
  std::size_t unmeasured_cases = 0;  // no samples: skipped or failed
  std::size_t min_late_cases = 0;    // how many late cases name a rank
  std::vector<RankSummary> ranks;    // by rank number
  std::size_t judged_cases() const;
  std::size_t named_count() const;
  int exit_code() const { return named_count() > 0 ? 1 : 0; }
};

// Throws report::ReportError naming the file when no case could be judged (none has two ranks
// with samples and an op whose ranks finish together): a gate must not pass what it could not
// judge.
RanksAnalysis analyze_ranks(const report::SampleFile& file, const RanksOptions& options);

// "12 case(s) judged, 2 not judged (...); skipped: 1 with one rank, 0 not measured".
std::string counted_cases(const RanksAnalysis& analysis);

}  // namespace collbench::collreport
