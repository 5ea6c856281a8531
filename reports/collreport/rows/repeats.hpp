// The passes of `collbench --repeat N`: rows that differ only in `repeat` measure one case, and
// compare and summary look at the case, pooled over its passes.
#pragma once

#include <cstddef>
#include <vector>

#include "reports/csv_reader.hpp"
#include "reports/row_key.hpp"

namespace collbench::collreport {

struct PooledCase {
  report::RowKey key;       // case_key: repeat = 0
  report::ReportLine line;  // the pooled row (see pool_passes), at its first pass's line
  std::size_t passes = 0;
  std::vector<double> pass_p50_us;  // the p50 of every ok pass with a time, in file order

  // The largest pass's p50 over the smallest, less 1: how far the passes drifted apart; 0 for
  // fewer than two.
  double spread() const;
};

// One row for the passes of one case (`passes` non-empty, all of one case key). A single pass is
// returned as it is. Several: status the first failure (oom, error, timeout) of any pass, else
// skipped when any pass was, else ok; wrong elements and samples summed. When ok, p50 time, busbw
// and algbw are the medians over the passes, and the interval is the hull [min lo, max hi] of the
// passes' intervals (none when a pass has none): a drift between passes widens it, so compare
// calls it inconclusive rather than a change. The mean's interval is pooled the same way.
report::ReportRow pool_passes(const std::vector<const report::ReportRow*>& passes);

// Every case of `report`, in key order.
std::vector<PooledCase> pool_repeats(const report::Report& report);

// Whether any row of `report` belongs to a pass after the first.
bool has_repeats(const report::Report& report);

}  // namespace collbench::collreport
