// What `collreport compare` prints: a verdict line, where each report came from, the tolerance
// rule in force, and the rows as a text table or as Markdown for a CI job summary.
#pragma once

#include <string>
#include <vector>

#include "compare/compare.hpp"
#include "text/table.hpp"

namespace collbench::collreport {

// "FAIL: 2 regressions, 1 failed row; 4 inconclusive, 130 no change, 3 improved, ...; judged by
// intervals 120, by fixed tolerance 19" (PASS when none failed).
std::string verdict_line(const Comparison& comparison);
// The rules that judged rows: "intervals: median time only, 95% intervals, minimum effect 3% (9%
// below 1 MiB, ...)" and/or "tolerance: 5% (15% below 1 MiB, ...)"; the last ends "; busbw in
// GB/s".
std::vector<std::string> rule_lines(const Comparison& comparison, const CompareOptions& options);
Table comparison_table(const std::vector<RowComparison>& rows);

// Which rows the text output lists.
struct TextRows {
  bool all = false;  // rows of no change too
  std::size_t max_rows = static_cast<std::size_t>(-1);
};

// For the terminal: rows with a verdict other than no change (all rows with `text_rows.all`),
// failures first and the largest changes first within a verdict, at most `text_rows.max_rows`.
std::string comparison_text(const Comparison& comparison, const report::Report& base,
                            const report::Report& fresh, const CompareOptions& options,
                            const TextRows& text_rows);
// For a CI job summary: failures and regressions in a table first, then inconclusive rows and
// every other row in collapsed sections.
std::string comparison_markdown(const Comparison& comparison, const report::Report& base,
                                const report::Report& fresh, const CompareOptions& options);

}  // namespace collbench::collreport
