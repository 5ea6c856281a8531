// What `collreport ranks` prints: the verdict line first, the rule in force, a table per rank
// over all cases and one per rank of every case, as text or as Markdown for a CI job summary.
#pragma once

#include <string>

#include "ranks/ranks.hpp"
#include "text/table.hpp"

namespace collbench::collreport {

// Per rank of every judged case: GPU lateness, time waited, host lateness, the limits and the
// verdict (LATE (cause) or waiting); a case that is not judged is one row saying why.
Table ranks_case_table(const RanksAnalysis& analysis);
// Per rank over the judged cases: how many, late by cause, waiting, mean GPU lateness.
Table ranks_summary_table(const RanksAnalysis& analysis);
// "collreport ranks: PASS: no late rank; 12 case(s) judged, ..." or "collreport ranks: LATE:
// rank 3 (host) in 11 of 12 cases, rank 1 (gpu) in 3 of 12; sporadic: rank 0 in 1 of 12; ...".
std::string ranks_verdict_line(const RanksAnalysis& analysis);

// The verdict line, where the cases were measured, the rule, and the per-rank and per-case tables:
// for the terminal, and as Markdown for a CI job summary.
std::string ranks_text(const RanksAnalysis& analysis, const RanksOptions& options);
std::string ranks_markdown(const RanksAnalysis& analysis, const RanksOptions& options);

}  // namespace collbench::collreport
