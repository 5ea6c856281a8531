// What `collreport beside` prints: a verdict line, where each side was measured, the tolerances,
// and one table per curve (op, ranks, dtype, variant) with a row per size; as text or Markdown.
#pragma once

#include <string>

#include "nccl_tests/beside.hpp"
#include "text/table.hpp"

namespace collbench::collreport {

// "PASS: 24 within, 0 outside; 12 not judged, 0 not measured, 3 unmatched (2 collbench only, 1
// nccl-tests only)"; FAIL when a row is outside.
std::string beside_verdict_line(const Beside& beside);
// "busbw within ±3% from 64 MiB; time within ±0.5 us or ±5% below 64 KiB; ..."
std::string beside_rule_line(const BesideOptions& options);
// The rows of one curve, by size: both sides' mean time and busbw, the differences, the verdict.
Table beside_table(const std::vector<BesideRow>& rows);

// For the terminal and for a file committed beside the reports.
std::string beside_text(const Beside& beside, const report::Report& collbench,
                        const report::Report& nccl_tests, const BesideOptions& options);
std::string beside_markdown(const Beside& beside, const report::Report& collbench,
                            const report::Report& nccl_tests, const BesideOptions& options);

}  // namespace collbench::collreport
