// Pooling the passes of `collbench --repeat N` into one row per case.
#include "rows/repeats.hpp"

#include <algorithm>
#include <map>
#include <type_traits>

#include "reports/statistics.hpp"

namespace collbench::collreport {

namespace {

// The pooled row's status and reason: a failure of any pass outweighs a skip, a skip an ok.
const report::ReportRow* status_source(const std::vector<const report::ReportRow*>& passes) {
  for (const report::ReportRow* pass : passes) {
    if (report::is_failure_status(pass->status)) return pass;
  }
  for (const report::ReportRow* pass : passes) {
    if (pass->status == report::kStatusSkipped) return pass;
  }
  return passes.front();
}

// The median over the passes of a field of the row (`Part` ReportRow) or of its times.
template <typename Part>
double median_of(const std::vector<const report::ReportRow*>& passes, double Part::*field) {
  std::vector<double> values;
  for (const report::ReportRow* pass : passes) {
    if constexpr (std::is_same_v<Part, report::TimeStats>) {
      values.push_back(pass->time.*field);
    } else {
      values.push_back(pass->*field);
    }
  }
  return stats::median(values);
}

}  // namespace

double PooledCase::spread() const {
  if (pass_p50_us.size() < 2) return 0;
  const auto [lowest, highest] = std::minmax_element(pass_p50_us.begin(), pass_p50_us.end());
  return *lowest > 0 ? *highest / *lowest - 1 : 0;
}

report::ReportRow pool_passes(const std::vector<const report::ReportRow*>& passes) {
  report::ReportRow pooled = *passes.front();
  if (passes.size() == 1) return pooled;
  const report::ReportRow* status = status_source(passes);
  pooled.status = status->status;
  pooled.reason = status->reason;
  pooled.wrong_elements = 0;
  pooled.time.samples = 0;
  for (const report::ReportRow* pass : passes) {
    pooled.wrong_elements += pass->wrong_elements;
    pooled.time.samples += pass->time.samples;
  }
  if (pooled.status != report::kStatusOk) return pooled;
  pooled.time.p50_us = median_of(passes, &report::TimeStats::p50_us);
  pooled.time.mean_us = median_of(passes, &report::TimeStats::mean_us);
  pooled.busbw_gbps = median_of(passes, &report::ReportRow::busbw_gbps);
  pooled.algbw_gbps = median_of(passes, &report::ReportRow::algbw_gbps);
  const bool all_have_intervals =
      std::all_of(passes.begin(), passes.end(),
                  [](const report::ReportRow* pass) { return pass->has_interval(); });
  // The mean's interval, like the median's, only where every pass has one (version 3 rows).
  const bool all_have_mean_intervals =
      std::all_of(passes.begin(), passes.end(),
                  [](const report::ReportRow* pass) { return pass->time.mean_hi_us > 0; });
  if (!all_have_intervals || !all_have_mean_intervals) {
    pooled.time.mean_lo_us = pooled.time.mean_hi_us = 0;
  }
  if (!all_have_intervals) {
    pooled.time.confidence_pct = 0;
    pooled.time.p50_lo_us = pooled.time.p50_hi_us = 0;
    return pooled;
  }
  for (const report::ReportRow* pass : passes) {
    pooled.time.confidence_pct = std::min(pooled.time.confidence_pct, pass->time.confidence_pct);
    pooled.time.p50_lo_us = std::min(pooled.time.p50_lo_us, pass->time.p50_lo_us);
    pooled.time.p50_hi_us = std::max(pooled.time.p50_hi_us, pass->time.p50_hi_us);
    if (!all_have_mean_intervals) continue;
    pooled.time.mean_lo_us = std::min(pooled.time.mean_lo_us, pass->time.mean_lo_us);
    pooled.time.mean_hi_us = std::max(pooled.time.mean_hi_us, pass->time.mean_hi_us);
  }
  return pooled;
}

std::vector<PooledCase> pool_repeats(const report::Report& report) {
  std::map<report::RowKey, std::vector<const report::ReportLine*>> by_case;
  for (const report::ReportLine& line : report.rows) {
    by_case[report::case_key(line.row)].push_back(&line);
  }
  std::vector<PooledCase> cases;
  for (const auto& [key, lines] : by_case) {
    std::vector<const report::ReportRow*> passes;
    PooledCase pooled_case;
    for (const report::ReportLine* line : lines) {
      passes.push_back(&line->row);
      if (line->row.status == report::kStatusOk && line->row.time.p50_us > 0) {
        pooled_case.pass_p50_us.push_back(line->row.time.p50_us);
      }
    }
    pooled_case.key = key;
    pooled_case.line = report::ReportLine{pool_passes(passes), lines.front()->line};
    pooled_case.passes = lines.size();
    cases.push_back(std::move(pooled_case));
  }
  return cases;
}

bool has_repeats(const report::Report& report) {
  return std::any_of(report.rows.begin(), report.rows.end(),
                     [](const report::ReportLine& line) { return line.row.repeat > 0; });
}

}  // namespace collbench::collreport
