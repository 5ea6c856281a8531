// `collreport ranks`: per case of a sample file (collbench --json), each rank's own median and
// mean time, its mean lateness, the slowest rank, and stragglers: ranks whose median lies well
// above the others', or that start their samples late.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "report_row.hpp"
#include "sample_file.hpp"
#include "table.hpp"

namespace collbench::collreport {

struct RanksOptions {
  // A rank is a straggler when its median exceeds the median of the other ranks' medians by
  // more than this fraction,
  double threshold = 0.10;
  // or when its mean lateness exceeds max(late_floor_us, late_share x the case's median time).
  // Lateness, not own time, finds a late rank: its own time is the shortest, since its peers
  // wait for it inside the collective. The floor keeps launch jitter of short cases unflagged.
  double late_floor_us = 50;
  double late_share = 0.25;
};

struct RankTimes {
  double median_us = 0;
  double mean_us = 0;
  // median_us / (median of the other ranks' medians) - 1; 0 when that median is 0.
  double excess = 0;
  // The mean of its lateness over the samples (0 when the file has none).
  double mean_lateness_us = 0;
  bool slow = false;       // excess above the threshold
  bool late = false;       // mean lateness above the lateness limit
  bool straggler = false;  // slow or late
};

struct CaseRanks {
  report::ReportRow row;
  unsigned line = 0;
  std::vector<RankTimes> ranks;  // index = rank
  int slowest_rank = 0;          // the highest median; the lowest rank on a tie
  bool has_lateness = false;     // the case holds each rank's lateness (older files do not)
  double late_limit_us = 0;      // the lateness above which a rank is flagged (with has_lateness)
};

// One rank over every case that has it.
struct RankSummary {
  int rank = 0;
  std::size_t cases = 0;
  std::size_t slowest = 0;      // cases in which it is the slowest rank
  std::size_t stragglers = 0;   // cases in which it is flagged
  std::size_t late = 0;         // of those, cases in which its lateness flags it
  double median_excess = 0;     // the median of its excess over the cases
  double mean_lateness_us = 0;  // the mean of its mean lateness over the cases that have one
};

struct RanksAnalysis {
  std::vector<CaseRanks> cases;  // cases with more than one rank and samples, in file order
  std::size_t single_rank_cases = 0;
  std::size_t unmeasured_cases = 0;  // no samples: skipped or failed
  std::vector<RankSummary> ranks;    // by rank number
  std::size_t straggler_count() const;
  bool has_lateness() const;  // some case holds lateness
  int exit_code() const { return straggler_count() > 0 ? 1 : 0; }
};

// Throws report::ReportError naming the file when no case has two ranks with samples: a gate
// must not pass what it could not judge.
RanksAnalysis analyze_ranks(const report::SampleFile& file, const RanksOptions& options);

// One line per rank of every case.
Table ranks_case_table(const RanksAnalysis& analysis);
// One line per rank over all cases.
Table ranks_summary_table(const RanksAnalysis& analysis);
// "collreport ranks: PASS: ..." or "collreport ranks: STRAGGLERS: rank 2 in 3 of 12 cases ..."
// (", 2 late" when its lateness flagged it in 2 of them).
std::string ranks_verdict_line(const RanksAnalysis& analysis, const RanksOptions& options);

// Reads the sample file at `path`, prints the analysis (text, or Markdown) to `out` and a cut-off
// last line's warning to `err`; returns the exit code (0, or 1 when a rank is flagged).
int run_ranks(const std::string& path, const RanksOptions& options, bool markdown,
              std::ostream& out, std::ostream& err);

}  // namespace collbench::collreport
