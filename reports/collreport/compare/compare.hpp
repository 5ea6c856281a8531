// `collreport compare`: matches the cases of two reports on their independent variables and
// decides, per case, whether NEW is slower than BASE, faster, the same, or cannot be told.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "reports/csv_reader.hpp"
#include "reports/row_key.hpp"

namespace collbench::collreport {

// Two rules judge a case that both reports measured (reports/README.md):
//
// The interval rule (decision.hpp), where both rows have a confidence interval of their median
// time: from the two intervals, whether the median time changed by more than `min_effect`. Only
// the median time is judged: busbw comes from the mean time, which a few slow iterations move.
//
// The tolerance rule, where a row has no interval (a version 1 report, too few samples): the case
// regresses when its p50 time rises, or its busbw falls, by more than `tolerance` of BASE. busbw
// is judged only where it says more than the time does: on rows that are not latency-bound and
// whose BASE busbw is at least kMinJudgedBusbwGbps (the CSV keeps three decimals, so a busbw of
// 0.002 GB/s moves by 25% through rounding alone).
//
// Both widen their threshold `latency_widening` times for collective rows smaller than
// `latency_bound_bytes`: there the time is a few microseconds of launch and synchronization
// latency, which drifts between runs far more than within one (an interval measures only the
// latter). dp_step rows (whole training steps, milliseconds) are never widened.
inline constexpr double kMinJudgedBusbwGbps = 1.0;

struct CompareOptions {
  double min_effect = 0.03;
  double tolerance = 0.05;
  std::uint64_t latency_bound_bytes = std::uint64_t{1} << 20;
  double latency_widening = 3.0;
};

bool is_latency_bound(const report::ReportRow& row, const CompareOptions& options);
// The tolerance rule: the largest relative change of busbw or p50 time that still counts as noise.
double allowed_change(const report::ReportRow& row, const CompareOptions& options);
// The interval rule: the smallest relative change of the median time that counts.
double minimum_effect(const report::ReportRow& row, const CompareOptions& options);
// Whether the tolerance rule judges busbw for `base_row` (p50 time it always judges).
bool judges_busbw(const report::ReportRow& base_row, const CompareOptions& options);
// Why `row` cannot be judged by the interval rule ("version 1 report", "no interval: 3
// samples", ...), or "" when it can.
std::string missing_interval_reason(const report::ReportRow& row);

// In the order rows are listed: what needs attention first.
enum class Verdict {
  kFailed,        // NEW has wrong elements, or failed (oom/error/timeout) where BASE was ok
  kNoTime,        // both ok, but a p50 time is 0: nothing to judge, so the gate cannot pass it
  kRegression,    // slower by more than the minimum effect (significant) or the tolerance
  kInconclusive,  // the intervals are too wide to rule out a change of the minimum effect
  kImproved,      // faster by more than the minimum effect (significant) or the tolerance
  kNotCompared,   // a side has no measurement (skipped or failed in BASE)
  kOnlyInBase,
  kOnlyInNew,
  kNoChange,  // within the minimum effect (or significant but below it), or within tolerance
};
const char* verdict_name(Verdict verdict);

// Which rule judged a case that both reports measured.
enum class Rule { kNone, kIntervals, kTolerance };

struct RowComparison {
  report::RowKey key;  // the case: repeat = 0
  Verdict verdict = Verdict::kNoChange;
  // The rows compared, each pooled over its passes (repeats.hpp).
  std::optional<report::ReportLine> base;
  std::optional<report::ReportLine> fresh;  // the NEW row
  std::size_t base_passes = 0;
  std::size_t fresh_passes = 0;
  Rule rule = Rule::kNone;     // kNone unless both were measured with a time
  bool measured_both = false;  // both ok: the changes below are set
  bool busbw_judged = false;   // busbw_change counts towards the verdict (tolerance rule only)
  double busbw_change = 0;     // (new - base) / base; 0 when BASE busbw is 0
  double p50_change = 0;       // (new - base) / base; 0 when BASE p50 is 0
  // The interval rule's plausible range of p50_change: [new_lo / base_hi - 1, new_hi / base_lo -
  // 1].
  double p50_change_lo = 0;
  double p50_change_hi = 0;
  double allowed = 0;  // the tolerance, or the minimum effect, in force for this case
  std::string note;
};

struct Comparison {
  std::vector<RowComparison> rows;  // by verdict (failures first), then by key
  std::size_t count(Verdict verdict) const;
  std::size_t count(Rule rule) const;
  // Cases present in both reports (whatever their status).
  std::size_t matched() const;
  bool failed() const {
    return count(Verdict::kFailed) + count(Verdict::kNoTime) + count(Verdict::kRegression) > 0;
  }
  int exit_code() const { return failed() ? 1 : 0; }
};

// A comparison that judged nothing cannot vouch for NEW: thrown by compare_reports when no case of
// NEW matches one of BASE, or when matched cases were never both measured (and none failed).
class NothingComparedError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Pools each report's passes, matches the cases and judges them. Throws NothingComparedError
// (see above).
Comparison compare_reports(const report::Report& base, const report::Report& fresh,
                           const CompareOptions& options);

}  // namespace collbench::collreport
