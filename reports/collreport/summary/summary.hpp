// `collreport summary`: one line per measured curve (op, algo, GPU count, dtype and any other
// setting that varies), with its peak bus bandwidth, where it is reached, and its latency floor.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reports/report_row.hpp"
#include "reports/row_key.hpp"
#include "text/table.hpp"

namespace collbench::collreport {

struct SeriesSummary {
  report::RowKey series;  // bytes = 0
  std::size_t ok_rows = 0;
  std::size_t skipped_rows = 0;
  std::size_t failed_rows = 0;       // oom, error, timeout
  std::uint64_t wrong_elements = 0;  // summed over every row of the curve
  // The figures below are set only when ok_rows > 0; they consider ok rows only.
  double peak_busbw_gbps = 0;
  std::uint64_t peak_bytes = 0;         // smallest size reaching the peak
  std::uint64_t half_peak_bytes = 0;    // smallest size whose busbw >= 50% of the peak
  std::uint64_t ninety_peak_bytes = 0;  // smallest size whose busbw >= 90% of the peak
  double latency_floor_us = 0;          // p50 time at the smallest ok size
  std::uint64_t latency_floor_bytes = 0;
  // Relative half-widths of the median's interval ((hi - lo) / 2 / p50), 0 where a row has none:
  // the latency floor's, and the widest of the curve's with the size where it is.
  double latency_floor_half_width = 0;
  double widest_half_width = 0;
  std::uint64_t widest_bytes = 0;
};

// (hi - lo) / 2 / p50 of `row`'s median interval; 0 when it has none.
double relative_half_width(const report::ReportRow& row);

// Curves in key order.
std::vector<SeriesSummary> summarize(const std::vector<report::ReportRow>& rows);

// The table printed by `collreport summary`; the latency floor shows its interval as "20.50 ±1.5%",
// and a column the widest interval of each curve.
Table summary_table(const std::vector<SeriesSummary>& summaries);

}  // namespace collbench::collreport
