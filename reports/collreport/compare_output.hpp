// What `collreport compare` prints: a verdict line, where each report came from, the tolerance
// rule in force, and the rows as a text table or as Markdown for a CI job summary.
#pragma once

#include <string>
#include <vector>

#include "compare.hpp"
#include "table.hpp"

namespace collbench::collreport {

// "FAIL: 2 regressions, 1 failed; 130 within tolerance, 3 improved, ..." (PASS when none failed).
std::string verdict_line(const Comparison& comparison);
// "5% (15% below 1 MiB, where sizes are latency-bound and only p50 time is judged; ...)".
std::string tolerance_description(const CompareOptions& options);
Table comparison_table(const std::vector<RowComparison>& rows);

// Which rows the text output lists.
struct TextRows {
  bool all = false;  // rows within tolerance too
  std::size_t max_rows = static_cast<std::size_t>(-1);
};

// For the terminal: rows that are not within tolerance (all rows with `text_rows.all`), failures
// first and the largest changes first within a verdict, at most `text_rows.max_rows` of them.
std::string comparison_text(const Comparison& comparison, const report::Report& base,
                            const report::Report& fresh, const CompareOptions& options,
                            const TextRows& text_rows);
// For a CI job summary: failures and regressions in a table first, every other row below it
// in a collapsed section.
std::string comparison_markdown(const Comparison& comparison, const report::Report& base,
                                const report::Report& fresh, const CompareOptions& options);

}  // namespace collbench::collreport
