// Case matching and the two rules of `collreport compare`: intervals where both rows have them, the
// fixed tolerance elsewhere.
#include "compare/compare.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "compare/decision.hpp"
#include "reports/schema.hpp"
#include "rows/repeats.hpp"
#include "text/format.hpp"

namespace collbench::collreport {
namespace {

std::string status_note(const char* side, const report::ReportRow& row) {
  return row.reason.empty() ? fmt::format("{} {}", row.status, side)
                            : fmt::format("{} {}: {}", row.status, side, row.reason);
}

// The tolerance rule on p50 time and (where judged) busbw.
void apply_tolerance_rule(RowComparison& c, const report::ReportRow& base,
                          const CompareOptions& options, std::vector<std::string>& notes) {
  c.rule = Rule::kTolerance;
  c.allowed = allowed_change(base, options);
  c.busbw_judged = judges_busbw(base, options);
  const double busbw_change = c.busbw_judged ? c.busbw_change : 0.0;
  const bool slower = busbw_change < -c.allowed || c.p50_change > c.allowed;
  const bool faster = busbw_change > c.allowed || c.p50_change < -c.allowed;
  c.verdict = slower ? Verdict::kRegression : faster ? Verdict::kImproved : Verdict::kNoChange;
  // busbw comes from the mean time, which a few slow iterations move while the median stays.
  if (slower && c.p50_change <= c.allowed) {
    notes.push_back("busbw (mean) only, p50 steady: a few slow iterations? rerun with more (-n)");
  }
}

MedianInterval median_interval(const report::ReportRow& row) {
  return {row.time.p50_us, row.time.p50_lo_us, row.time.p50_hi_us};
}

// The interval rule (decision.hpp) on the median time.
void apply_interval_rule(RowComparison& c, const report::ReportRow& base,
                         const report::ReportRow& fresh, const CompareOptions& options,
                         std::vector<std::string>& notes) {
  c.rule = Rule::kIntervals;
  c.allowed = minimum_effect(base, options);
  const IntervalJudgement j =
      judge_by_intervals(median_interval(base), median_interval(fresh), c.allowed);
  c.p50_change_lo = j.change_lo;
  c.p50_change_hi = j.change_hi;
  switch (j.decision) {
    case IntervalDecision::kRegressed:
      c.verdict = Verdict::kRegression;
      break;
    case IntervalDecision::kImproved:
      c.verdict = Verdict::kImproved;
      break;
    case IntervalDecision::kNoChange:
      c.verdict = Verdict::kNoChange;
      if (j.significant) notes.push_back("significant but below the minimum effect");
      break;
    case IntervalDecision::kInconclusive:
      c.verdict = Verdict::kInconclusive;
      notes.push_back(fmt::format(
          "range {:.1f}% wide, could hold a {} change: narrow it (collbench --max-noise, or more "
          "iterations -n)",
          100 * (j.change_hi - j.change_lo), format_percent(c.allowed)));
      break;
  }
}

// "fixed tolerance: no interval in BASE (version 1 report)", naming each side without one.
std::string tolerance_note(const report::ReportRow& base, const report::ReportRow& fresh) {
  const std::string base_reason = missing_interval_reason(base);
  const std::string fresh_reason = missing_interval_reason(fresh);
  if (base_reason == fresh_reason) {
    return fmt::format("fixed tolerance: no interval in BASE or NEW ({})", base_reason);
  }
  if (fresh_reason.empty()) {
    return fmt::format("fixed tolerance: no interval in BASE ({})", base_reason);
  }
  if (base_reason.empty()) {
    return fmt::format("fixed tolerance: no interval in NEW ({})", fresh_reason);
  }
  return fmt::format("fixed tolerance: no interval in BASE ({}) or NEW ({})", base_reason,
                     fresh_reason);
}

// "BASE 3 passes, spread 4.1%" for each side measured in several passes.
void add_pass_notes(const char* side, const PooledCase& pooled, std::vector<std::string>& notes) {
  if (pooled.passes < 2) return;
  notes.push_back(
      fmt::format("{} {} passes, spread {}", side, pooled.passes, format_percent(pooled.spread())));
}

// BASE and NEW both measured the case: compare the numbers.
void judge_measured(RowComparison& c, const PooledCase& base_case, const PooledCase& fresh_case,
                    const CompareOptions& options) {
  const report::ReportRow& base = base_case.line.row;
  const report::ReportRow& fresh = fresh_case.line.row;
  c.measured_both = true;
  c.busbw_change = relative_change(base.busbw_gbps, fresh.busbw_gbps);
  c.p50_change = relative_change(base.time.p50_us, fresh.time.p50_us);
  std::vector<std::string> notes;
  if (missing_interval_reason(base).empty() && missing_interval_reason(fresh).empty()) {
    apply_interval_rule(c, base, fresh, options, notes);
  } else {
    notes.push_back(tolerance_note(base, fresh));
    apply_tolerance_rule(c, base, options, notes);
  }
  add_pass_notes("BASE", base_case, notes);
  add_pass_notes("NEW", fresh_case, notes);
  if (base.wrong_elements > 0) {
    notes.push_back(fmt::format("BASE had {} wrong elements", base.wrong_elements));
  }
  c.note = fmt::format("{}", fmt::join(notes, "; "));
}

// An ok row without a time cannot be judged; a relative change against 0 would call anything ok.
void judge_without_time(RowComparison& c, const report::ReportRow& base) {
  c.verdict = Verdict::kNoTime;
  c.note = base.time.p50_us <= 0
               ? "BASE is ok but its p50 time is 0: fix or re-measure the baseline"
               : "NEW is ok but its p50 time is 0";
}

void judge_matched(RowComparison& c, const PooledCase& base_case, const PooledCase& fresh_case,
                   const CompareOptions& options) {
  const report::ReportRow& base = c.base->row;
  const report::ReportRow& fresh = c.fresh->row;
  if (base.status == report::kStatusOk && fresh.status == report::kStatusOk) {
    if (base.time.p50_us <= 0 || fresh.time.p50_us <= 0) {
      judge_without_time(c, base);
    } else {
      judge_measured(c, base_case, fresh_case, options);
    }
  }
  if (fresh.wrong_elements > 0) {
    // Wrong results fail whatever the speed; the changes stay in the table for context.
    c.verdict = Verdict::kFailed;
    c.note = fmt::format("{} wrong elements", fresh.wrong_elements);
  } else if (report::is_failure_status(fresh.status) && base.status == report::kStatusOk) {
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
  return row.op != report::kDpStepOp && row.bytes < options.latency_bound_bytes;
}

double allowed_change(const report::ReportRow& row, const CompareOptions& options) {
  return is_latency_bound(row, options) ? options.tolerance * options.latency_widening
                                        : options.tolerance;
}

double minimum_effect(const report::ReportRow& row, const CompareOptions& options) {
  return is_latency_bound(row, options) ? options.min_effect * options.latency_widening
                                        : options.min_effect;
}

bool judges_busbw(const report::ReportRow& base_row, const CompareOptions& options) {
  return !is_latency_bound(base_row, options) && base_row.busbw_gbps >= kMinJudgedBusbwGbps;
}

std::string missing_interval_reason(const report::ReportRow& row) {
  if (row.schema_version < 2) return fmt::format("version {} report", row.schema_version);
  if (!row.has_interval()) return fmt::format("{} samples", row.time.samples);
  // A hand edit or a bug; the ratios of the interval rule would mean nothing.
  if (!(row.time.p50_lo_us > 0 && row.time.p50_lo_us <= row.time.p50_us &&
        row.time.p50_us <= row.time.p50_hi_us)) {
    return "p50 outside its interval";
  }
  return "";
}

const char* verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::kFailed:
      return "FAILED";
    case Verdict::kNoTime:
      return "NO TIME";
    case Verdict::kRegression:
      return "REGRESSION";
    case Verdict::kInconclusive:
      return "inconclusive";
    case Verdict::kImproved:
      return "improved";
    case Verdict::kNotCompared:
      return "not compared";
    case Verdict::kOnlyInBase:
      return "only in BASE";
    case Verdict::kOnlyInNew:
      return "only in NEW";
    case Verdict::kNoChange:
      return "no change";
  }
  return "?";
}

std::size_t Comparison::count(Verdict verdict) const {
  return static_cast<std::size_t>(
      std::count_if(rows.begin(), rows.end(),
                    [verdict](const RowComparison& c) { return c.verdict == verdict; }));
}

std::size_t Comparison::count(Rule rule) const {
  return static_cast<std::size_t>(std::count_if(
      rows.begin(), rows.end(), [rule](const RowComparison& c) { return c.rule == rule; }));
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
        "config; passes of --repeat are pooled)",
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
  struct Sides {
    std::optional<PooledCase> base, fresh;
  };
  std::map<report::RowKey, Sides> by_key;
  for (PooledCase& pooled : pool_repeats(base)) by_key[pooled.key].base = std::move(pooled);
  for (PooledCase& pooled : pool_repeats(fresh)) by_key[pooled.key].fresh = std::move(pooled);
  Comparison comparison;
  for (const auto& [key, sides] : by_key) {
    RowComparison c;
    c.key = key;
    if (sides.base) {
      c.base = sides.base->line;
      c.base_passes = sides.base->passes;
    }
    if (sides.fresh) {
      c.fresh = sides.fresh->line;
      c.fresh_passes = sides.fresh->passes;
    }
    if (c.base && c.fresh) {
      judge_matched(c, *sides.base, *sides.fresh, options);
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
