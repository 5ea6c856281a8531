// Per-curve summaries of a report: peak busbw, the sizes reaching 50% and 90% of it, latency floor.
#include "summary/summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "reports/statistics.hpp"
#include "text/format.hpp"
#include "text/key_columns.hpp"
#include "text/table.hpp"

namespace collbench::collreport {
namespace {

// The smallest size whose busbw reaches `threshold_gbps`; `ok_rows` sorted by size.
std::uint64_t first_size_reaching(const std::vector<const report::ReportRow*>& ok_rows,
                                  double threshold_gbps) {
  for (const report::ReportRow* row : ok_rows) {
    if (row->busbw_gbps >= threshold_gbps) return row->bytes;
  }
  return 0;
}

SeriesSummary summarize_series(const report::RowKey& series,
                               std::vector<const report::ReportRow*> rows) {
  SeriesSummary summary;
  summary.series = series;
  std::vector<const report::ReportRow*> ok_rows;
  for (const report::ReportRow* row : rows) {
    summary.wrong_elements += row->wrong_elements;
    if (row->status == report::kStatusOk) {
      ok_rows.push_back(row);
    } else if (row->status == report::kStatusSkipped) {
      ++summary.skipped_rows;
    } else {
      ++summary.failed_rows;
    }
  }
  summary.ok_rows = ok_rows.size();
  if (ok_rows.empty()) return summary;

  std::sort(
      ok_rows.begin(), ok_rows.end(),
      [](const report::ReportRow* a, const report::ReportRow* b) { return a->bytes < b->bytes; });
  summary.peak_busbw_gbps = ok_rows.front()->busbw_gbps;
  summary.peak_bytes = ok_rows.front()->bytes;
  for (const report::ReportRow* row : ok_rows) {
    // Strictly greater: on a tie the smaller size is where the peak is first reached.
    if (row->busbw_gbps > summary.peak_busbw_gbps) {
      summary.peak_busbw_gbps = row->busbw_gbps;
      summary.peak_bytes = row->bytes;
    }
  }
  summary.half_peak_bytes = first_size_reaching(ok_rows, 0.5 * summary.peak_busbw_gbps);
  summary.ninety_peak_bytes = first_size_reaching(ok_rows, 0.9 * summary.peak_busbw_gbps);
  // Rows without samples (nccl-tests' through `collreport nccl-tests`) have only a mean.
  const report::ReportRow& smallest = *ok_rows.front();
  summary.latency_floor_us =
      smallest.time.p50_us > 0 ? smallest.time.p50_us : smallest.time.mean_us;
  summary.latency_floor_bytes = ok_rows.front()->bytes;
  summary.latency_floor_half_width = relative_half_width(*ok_rows.front());
  for (const report::ReportRow* row : ok_rows) {
    const double half_width = relative_half_width(*row);
    if (half_width > summary.widest_half_width) {
      summary.widest_half_width = half_width;
      summary.widest_bytes = row->bytes;
    }
  }
  return summary;
}

// "±1.5%", a relative half-width as the summary shows it.
std::string plus_minus(double half_width) {
  return fmt::format("±{:.1f}%", 100 * half_width);
}

std::string latency_floor_cell(const SeriesSummary& s) {
  const std::string time = format_us(s.latency_floor_us);
  return s.latency_floor_half_width > 0 ? time + " " + plus_minus(s.latency_floor_half_width)
                                        : time;
}

}  // namespace

double relative_half_width(const report::ReportRow& row) {
  if (!row.has_interval() || row.time.p50_us <= 0) return 0;
  return stats::Interval{row.time.p50_lo_us, row.time.p50_hi_us}.relative_half_width(
      row.time.p50_us);
}

std::vector<SeriesSummary> summarize(const std::vector<report::ReportRow>& rows) {
  std::map<report::RowKey, std::vector<const report::ReportRow*>> by_series;
  for (const report::ReportRow& row : rows) by_series[report::series_key(row)].push_back(&row);
  std::vector<SeriesSummary> summaries;
  for (const auto& [series, series_rows] : by_series) {
    summaries.push_back(summarize_series(series, series_rows));
  }
  return summaries;
}

Table summary_table(const std::vector<SeriesSummary>& summaries) {
  Table table;
  add_key_columns(table.columns, KeyColumns::kCurve);
  table.columns.insert(table.columns.end(), {{"peak busbw (GB/s)", Align::kRight},
                                             {"at", Align::kRight},
                                             {"50% at", Align::kRight},
                                             {"90% at", Align::kRight},
                                             {"latency floor (us)", Align::kRight},
                                             {"floor at", Align::kRight},
                                             {"widest p50 ±", Align::kRight},
                                             {"wrong", Align::kRight},
                                             {"ok", Align::kRight},
                                             {"skipped", Align::kRight},
                                             {"failed", Align::kRight}});
  for (const SeriesSummary& s : summaries) {
    const bool measured = s.ok_rows > 0;
    auto size_cell = [measured](std::uint64_t bytes) {
      return measured ? format_bytes(bytes) : std::string("-");
    };
    std::vector<std::string> cells;
    add_key_cells(cells, s.series, KeyColumns::kCurve);
    cells.insert(cells.end(),
                 {measured ? format_gbps(s.peak_busbw_gbps) : "-", size_cell(s.peak_bytes),
                  size_cell(s.half_peak_bytes), size_cell(s.ninety_peak_bytes),
                  measured ? latency_floor_cell(s) : "-", size_cell(s.latency_floor_bytes),
                  s.widest_half_width > 0 ? fmt::format("{} at {}", plus_minus(s.widest_half_width),
                                                        format_bytes(s.widest_bytes))
                                          : "-",
                  std::to_string(s.wrong_elements), std::to_string(s.ok_rows),
                  std::to_string(s.skipped_rows), std::to_string(s.failed_rows)});
    table.add_row(std::move(cells));
  }
  return table;
}

}  // namespace collbench::collreport
