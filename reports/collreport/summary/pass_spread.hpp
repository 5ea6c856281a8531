// The spread between the passes of `collbench --repeat N`, per case: how far one build's
// measurements drift from pass to pass, which no single pass's interval shows.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "reports/csv_reader.hpp"
#include "reports/row_key.hpp"
#include "text/table.hpp"

namespace collbench::collreport {

struct CaseSpread {
  report::RowKey key;      // the case: repeat = 0
  std::size_t passes = 0;  // passes measured with a time
  double fastest_p50_us = 0;
  double slowest_p50_us = 0;
  double spread = 0;  // slowest / fastest - 1
};

// Every case measured (ok, with a time) in at least two passes, the largest spread first.
std::vector<CaseSpread> pass_spreads(const report::Report& report);

// The median spread of `spreads` (non-empty).
double median_spread(const std::vector<CaseSpread>& spreads);

// The first `max_rows` of `spreads` as a table.
Table pass_spread_table(const std::vector<CaseSpread>& spreads, std::size_t max_rows);

// "Between passes: 12 cases measured in 2 to 3 passes; spread = ...; median 1.2%, the 10 widest:"
std::string pass_spread_heading(const std::vector<CaseSpread>& spreads, std::size_t listed);

}  // namespace collbench::collreport
