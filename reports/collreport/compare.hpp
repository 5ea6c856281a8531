// `collreport compare`: matches the rows of two reports on their independent variables and
// decides, per row, whether NEW is worse than BASE by more than the tolerance allows.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "csv_reader.hpp"
#include "row_key.hpp"

namespace collbench::collreport {

// The tolerance rule (reports/README.md): a row regresses when its p50 time rises, or its busbw
// falls, by more than the allowed fraction of BASE. The allowed fraction is `tolerance`, widened
// `latency_widening` times for collective rows smaller than `latency_bound_bytes`: there the time
// is a few microseconds of launch and synchronization latency, whose run-to-run jitter is a larger
// fraction of it. dp_step rows (whole training steps, milliseconds) always get `tolerance`.
// busbw is judged only where it says more than the time does: on rows that are not latency-bound
// and whose BASE busbw is at least kMinJudgedBusbwGbps (the CSV keeps three decimals, so a busbw
// of 0.002 GB/s moves by 25% through rounding alone).
inline constexpr double kMinJudgedBusbwGbps = 1.0;

struct CompareOptions {
  double tolerance = 0.05;
  std::uint64_t latency_bound_bytes = std::uint64_t{1} << 20;
  double latency_widening = 3.0;
};

bool is_latency_bound(const report::ReportRow& row, const CompareOptions& options);
// The largest relative change of busbw or p50 time that still counts as noise for `row`.
double allowed_change(const report::ReportRow& row, const CompareOptions& options);
// Whether busbw is judged for `base_row` (p50 time always is).
bool judges_busbw(const report::ReportRow& base_row, const CompareOptions& options);

// In the order rows are listed: what needs attention first.
enum class Verdict {
  kFailed,       // NEW has wrong elements, or failed (oom/error/timeout) where BASE was ok
  kNoTime,       // both ok, but a p50 time is 0: nothing to judge, so the gate cannot pass it
  kRegression,   // worse than allowed
  kImproved,     // better than allowed
  kNotCompared,  // a side has no measurement (skipped or failed in BASE)
  kOnlyInBase,
  kOnlyInNew,
  kWithinTolerance,
};
const char* verdict_name(Verdict verdict);

struct RowComparison {
  report::RowKey key;
  Verdict verdict = Verdict::kWithinTolerance;
  std::optional<report::ReportLine> base;
  std::optional<report::ReportLine> fresh;  // the NEW row
  bool measured_both = false;               // both ok: the changes below are set
  bool busbw_judged = false;                // busbw_change counts towards the verdict
  double busbw_change = 0;                  // (new - base) / base; 0 when BASE busbw is 0
  double p50_change = 0;                    // (new - base) / base; 0 when BASE p50 is 0
  double allowed = 0;
  std::string note;
};

struct Comparison {
  std::vector<RowComparison> rows;  // by verdict (failures first), then by key
  std::size_t count(Verdict verdict) const;
  // Rows present in both reports (whatever their status).
  std::size_t matched() const;
  bool failed() const {
    return count(Verdict::kFailed) + count(Verdict::kNoTime) + count(Verdict::kRegression) > 0;
  }
  int exit_code() const { return failed() ? 1 : 0; }
};

// A comparison that judged nothing cannot vouch for NEW: thrown by compare_reports when no row of
// NEW matches one of BASE, or when matched rows were never both measured (and none failed).
class NothingComparedError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws NothingComparedError (see above).
Comparison compare_reports(const report::Report& base, const report::Report& fresh,
                           const CompareOptions& options);

}  // namespace collbench::collreport
