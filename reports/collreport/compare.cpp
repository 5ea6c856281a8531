// Row matching and the tolerance rule of `collreport compare`.
#include "compare.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace collbench::collreport {
namespace {

bool is_failure_status(const std::string& status) {
  return status != report::kStatusOk && status != report::kStatusSkipped;
}

double relative_change(double base, double fresh) {
  return base > 0 ? (fresh - base) / base : 0.0;
}

std::string status_note(const char* side, const report::ReportRow& row) {
  return row.reason.empty() ? fmt::format("{} {}", row.status, side)
                            : fmt::format("{} {}: {}", row.status, side, row.reason);
}

// BASE and NEW both measured the row: compare the numbers.
void judge_measured(RowComparison& c, const report::ReportRow& base, const report::ReportRow& fresh,
                    const CompareOptions& options) {
  c.measured_both = true;
  c.allowed = allowed_change(base, options);
  c.busbw_judged = judges_busbw(base, options);
  c.busbw_change = relative_change(base.busbw_gbps, fresh.busbw_gbps);
  c.p50_change = relative_change(base.time_us_p50, fresh.time_us_p50);
  const double busbw_change = c.busbw_judged ? c.busbw_change : 0.0;
  const bool slower = busbw_change < -c.allowed || c.p50_change > c.allowed;
  const bool faster = busbw_change > c.allowed || c.p50_change < -c.allowed;
  c.verdict = slower   ? Verdict::kRegression
              : faster ? Verdict::kImproved
                       : Verdict::kWithinTolerance;
  std::vector<std::string> notes;
  if (base.wrong_elements > 0) {
    notes.push_back(fmt::format("BASE had {} wrong elements", base.wrong_elements));
  }
  // busbw comes from the mean time, which a few slow iterations move while the median stays.
  if (slower && c.p50_change <= c.allowed) {
    notes.push_back("busbw (mean) only, p50 steady: a few slow iterations? rerun with more (-n)");
  }
  c.note = fmt::format("{}", fmt::join(notes, "; "));
}

// An ok row without a time cannot be judged; a relative change against 0 would call anything ok.
void judge_without_time(RowComparison& c, const report::ReportRow& base) {
  c.verdict = Verdict::kNoTime;
  c.note = base.time_us_p50 <= 0
               ? "BASE is ok but its p50 time is 0: fix or re-measure the baseline"
               : "NEW is ok but its p50 time is 0";
}

void judge_matched(RowComparison& c, const CompareOptions& options) {
  const report::ReportRow& base = c.base->row;
  const report::ReportRow& fresh = c.fresh->row;
  if (base.status == report::kStatusOk && fresh.status == report::kStatusOk) {
    if (base.time_us_p50 <= 0 || fresh.time_us_p50 <= 0) {
      judge_without_time(c, base);
    } else {
      judge_measured(c, base, fresh, options);
    }
  }
  if (fresh.wrong_elements > 0) {
    // Wrong results fail whatever the speed; the changes stay in the table for context.
    c.verdict = Verdict::kFailed;
    c.note = fmt::format("{} wrong elements", fresh.wrong_elements);
  } else if (is_failure_status(fresh.status) && base.status == report::kStatusOk) {
    c.verdict = Verdict::kFailed;
    c.note = status_note("in NEW", fresh);
  } else if (!c.measured_both && c.verdict != Verdict::kNoTime) {
    c.verdict = Verdict::kNotCompared;
    c.note = base.status != report::kStatusOk ? status_note("in BASE", base)
                                              : status_note("in NEW", fresh);
  }
}

}  // namespace

bool is_latency_bound(const report::ReportRow& row, const CompareOptions& options) {
  return row.op != "dp_step" && row.bytes < options.latency_bound_bytes;
}

double allowed_change(const report::ReportRow& row, const CompareOptions& options) {
  return is_latency_bound(row, options) ? options.tolerance * options.latency_widening
                                        : options.tolerance;
}

bool judges_busbw(const report::ReportRow& base_row, const CompareOptions& options) {
  return !is_latency_bound(base_row, options) && base_row.busbw_gbps >= kMinJudgedBusbwGbps;
}

const char* verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::kFailed:
      return "FAILED";
    case Verdict::kNoTime:
      return "NO TIME";
    case Verdict::kRegression:
      return "REGRESSION";
    case Verdict::kImproved:
      return "improved";
    case Verdict::kNotCompared:
      return "not compared";
    case Verdict::kOnlyInBase:
      return "only in BASE";
    case Verdict::kOnlyInNew:
      return "only in NEW";
    case Verdict::kWithinTolerance:
      return "ok";
  }
  return "?";
}

std::size_t Comparison::count(Verdict verdict) const {
  return static_cast<std::size_t>(
      std::count_if(rows.begin(), rows.end(),
                    [verdict](const RowComparison& c) { return c.verdict == verdict; }));
}

std::size_t Comparison::matched() const {
  return static_cast<std::size_t>(std::count_if(
      rows.begin(), rows.end(), [](const RowComparison& c) { return c.base && c.fresh; }));
}

namespace {

void require_something_compared(const Comparison& comparison) {
  const std::size_t matched = comparison.matched();
  if (matched == 0) {
    throw NothingComparedError(fmt::format(
        "nothing compared: no row of NEW matches a row of BASE ({} only in BASE, {} only in NEW; "
        "rows match on op, algo, ranks, dtype, redop, root, in_place, bytes, graph, agg_iters, "
        "config)",
        comparison.count(Verdict::kOnlyInBase), comparison.count(Verdict::kOnlyInNew)));
  }
  const bool any_judged = std::any_of(
      comparison.rows.begin(), comparison.rows.end(),
      [](const RowComparison& c) { return c.measured_both || c.verdict == Verdict::kNoTime; });
  if (!any_judged && !comparison.failed()) {
    throw NothingComparedError(fmt::format(
        "nothing compared: {} rows match, but none is ok in both BASE and NEW", matched));
  }
}

}  // namespace

Comparison compare_reports(const report::Report& base, const report::Report& fresh,
                           const CompareOptions& options) {
  std::map<report::RowKey, RowComparison> by_key;
  for (const report::ReportLine& line : base.rows) {
    RowComparison& c = by_key[report::row_key(line.row)];
    c.key = report::row_key(line.row);
    c.base = line;
  }
  for (const report::ReportLine& line : fresh.rows) {
    RowComparison& c = by_key[report::row_key(line.row)];
    c.key = report::row_key(line.row);
    c.fresh = line;
  }
  Comparison comparison;
  for (auto& [key, c] : by_key) {
    if (c.base && c.fresh) {
      judge_matched(c, options);
    } else if (c.fresh && c.fresh->row.wrong_elements > 0) {
      c.verdict = Verdict::kFailed;  // wrong results fail the gate even on a row new to the sweep
      c.note = fmt::format("{} wrong elements (row only in NEW)", c.fresh->row.wrong_elements);
    } else {
      c.verdict = c.base ? Verdict::kOnlyInBase : Verdict::kOnlyInNew;
    }
    comparison.rows.push_back(std::move(c));
  }
  // by_key is in key order, so a stable sort by verdict keeps each verdict's rows in key order.
  std::stable_sort(
      comparison.rows.begin(), comparison.rows.end(),
      [](const RowComparison& a, const RowComparison& b) { return a.verdict < b.verdict; });
  require_something_compared(comparison);
  return comparison;
}

}  // namespace collbench::collreport
