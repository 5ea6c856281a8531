// Matching collbench's NCCL rows with nccl-tests' and judging each pair by the tolerance of its
// size.
#include "nccl_tests/beside.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "compare/compare.hpp"
#include "compare/decision.hpp"
#include "nccl_tests/nccl_tests_rows.hpp"
#include "rows/repeats.hpp"
#include "text/format.hpp"

namespace collbench::collreport {
namespace {

constexpr const char* kCollbenchAlgo = "nccl";
constexpr const char* kMatchedColumns =
    "op, ranks, dtype, redop, root, in_place, bytes, graph, agg_iters, config, repeat";

std::string status_note(const char* side, const report::ReportRow& row) {
  return row.reason.empty() ? fmt::format("{} in {}", row.status, side)
                            : fmt::format("{} in {}: {}", row.status, side, row.reason);
}

// Why a matched pair has nothing to compare, or "" when both sides are ok with a time.
std::string unmeasured_reason(const report::ReportRow& collbench,
                              const report::ReportRow& nccl_tests) {
  if (collbench.status != report::kStatusOk) return status_note("collbench", collbench);
  if (nccl_tests.status != report::kStatusOk) return status_note("nccl-tests", nccl_tests);
  if (!(collbench.time.mean_us > 0)) return "no mean time in collbench";
  if (!(nccl_tests.time.mean_us > 0)) return "no mean time in nccl-tests";
  return "";
}

// Facts beside the numbers that may explain a difference.
void add_context_notes(const report::ReportRow& collbench, const report::ReportRow& nccl_tests,
                       std::vector<std::string>& notes) {
  if (collbench.wrong_elements > 0) {
    notes.push_back(fmt::format("collbench: {} wrong elements", collbench.wrong_elements));
  }
  if (nccl_tests.wrong_elements > 0) {
    notes.push_back(fmt::format("nccl-tests: {} wrong elements", nccl_tests.wrong_elements));
  }
  if (nccl_tests.extra.find("time=cputime") != std::string::npos) {
    notes.push_back("nccl-tests time is CPU time (-C 1)");
  }
}

void judge_measured(BesideRow& r, const report::ReportRow& collbench,
                    const report::ReportRow& nccl_tests, const BesideOptions& options,
                    std::vector<std::string>& notes) {
  r.measured_both = true;
  r.time_difference_us = collbench.time.mean_us - nccl_tests.time.mean_us;
  r.time_change = relative_change(nccl_tests.time.mean_us, collbench.time.mean_us);
  r.busbw_change = relative_change(nccl_tests.busbw_gbps, collbench.busbw_gbps);
  bool within = true;
  if (r.key.bytes >= options.busbw_from_bytes) {
    if (nccl_tests.busbw_gbps > 0) {
      r.busbw_judged = true;
      within = within && within_tolerance(r.busbw_change, options.busbw_tolerance);
    } else {
      notes.push_back("busbw 0 in nccl-tests: not judged");
    }
  }
  if (r.key.bytes < options.time_below_bytes) {
    r.time_judged = true;
    within = within && (within_tolerance(r.time_difference_us, options.time_tolerance_us) ||
                        within_tolerance(r.time_change, options.time_tolerance));
  }
  if (r.busbw_judged || r.time_judged) {
    r.verdict = within ? BesideVerdict::kWithin : BesideVerdict::kOutside;
  } else {
    r.verdict = BesideVerdict::kNotJudged;
    if (r.key.bytes >= options.time_below_bytes && r.key.bytes < options.busbw_from_bytes) {
      notes.push_back(fmt::format("between {} and {}", format_bytes(options.time_below_bytes),
                                  format_bytes(options.busbw_from_bytes)));
    }
  }
}

void judge(BesideRow& r, const BesideOptions& options) {
  if (!r.collbench || !r.nccl_tests) {
    r.verdict = BesideVerdict::kUnmatched;
    r.note = r.collbench ? "collbench only" : "nccl-tests only";
    return;
  }
  const report::ReportRow& collbench = r.collbench->row;
  const report::ReportRow& nccl_tests = r.nccl_tests->row;
  std::vector<std::string> notes;
  const std::string unmeasured = unmeasured_reason(collbench, nccl_tests);
  if (unmeasured.empty()) {
    judge_measured(r, collbench, nccl_tests, options, notes);
  } else {
    r.verdict = BesideVerdict::kNotMeasured;
    notes.push_back(unmeasured);
  }
  add_context_notes(collbench, nccl_tests, notes);
  r.note = fmt::format("{}", fmt::join(notes, "; "));
}

// The key both tools' rows share: every independent variable but algo.
report::RowKey shared_key(const report::ReportRow& row) {
  report::RowKey key = report::row_key(row);
  key.algo.clear();
  return key;
}

void require_rows_of(const report::Report& report, const char* algo, const char* what) {
  const bool any = std::any_of(report.rows.begin(), report.rows.end(),
                               [algo](const report::ReportLine& l) { return l.row.algo == algo; });
  if (!any) {
    throw report::ReportError(
        report.path, 0,
        fmt::format("no row of algo {} ({}) in {} rows", algo, what, report.rows.size()));
  }
}

void require_something_judged(const Beside& beside) {
  const std::size_t matched = beside.rows.size() - beside.count(BesideVerdict::kUnmatched);
  if (matched == 0) {
    throw NothingComparedError(fmt::format(
        "nothing beside: no collbench nccl row matches an nccl-tests row ({} collbench only, {} "
        "nccl-tests only; rows match on {}: is --config the same on both sides?)",
        beside.only_in_collbench(), beside.only_in_nccl_tests(), kMatchedColumns));
  }
  if (beside.count(BesideVerdict::kWithin) + beside.count(BesideVerdict::kOutside) == 0) {
    throw NothingComparedError(fmt::format(
        "nothing judged: {} rows match, but none is measured on both sides at a size a tolerance "
        "covers ({} not judged, {} not measured)",
        matched, beside.count(BesideVerdict::kNotJudged),
        beside.count(BesideVerdict::kNotMeasured)));
  }
}

}  // namespace

const char* beside_verdict_name(BesideVerdict verdict) {
  switch (verdict) {
    case BesideVerdict::kOutside:
      return "OUTSIDE";
    case BesideVerdict::kWithin:
      return "within";
    case BesideVerdict::kNotJudged:
      return "not judged";
    case BesideVerdict::kNotMeasured:
      return "not measured";
    case BesideVerdict::kUnmatched:
      return "unmatched";
  }
  return "?";
}

std::size_t Beside::count(BesideVerdict verdict) const {
  return static_cast<std::size_t>(std::count_if(
      rows.begin(), rows.end(), [verdict](const BesideRow& r) { return r.verdict == verdict; }));
}

std::size_t Beside::only_in_collbench() const {
  return static_cast<std::size_t>(std::count_if(
      rows.begin(), rows.end(), [](const BesideRow& r) { return r.collbench && !r.nccl_tests; }));
}

std::size_t Beside::only_in_nccl_tests() const {
  return static_cast<std::size_t>(std::count_if(
      rows.begin(), rows.end(), [](const BesideRow& r) { return !r.collbench && r.nccl_tests; }));
}

bool within_tolerance(double difference, double tolerance) {
  return std::abs(difference) <= tolerance * (1 + 1e-9);
}

Beside beside_reports(const report::Report& collbench, const report::Report& nccl_tests,
                      const BesideOptions& options) {
  require_rows_of(collbench, kCollbenchAlgo, "collbench's NCCL rows");
  require_rows_of(nccl_tests, kNcclTestsAlgo, "written by collreport nccl-tests");
  // Passes of one case (collbench --repeat, nccl-tests run again) are pooled first: their median.
  std::map<report::RowKey, BesideRow> by_key;
  for (const PooledCase& pooled : pool_repeats(collbench)) {
    if (pooled.line.row.algo == kCollbenchAlgo)
      by_key[shared_key(pooled.line.row)].collbench = pooled.line;
  }
  for (const PooledCase& pooled : pool_repeats(nccl_tests)) {
    if (pooled.line.row.algo == kNcclTestsAlgo)
      by_key[shared_key(pooled.line.row)].nccl_tests = pooled.line;
  }
  Beside beside;
  for (auto& [key, row] : by_key) {
    row.key = key;
    judge(row, options);
    beside.rows.push_back(std::move(row));
  }
  require_something_judged(beside);
  return beside;
}

}  // namespace collbench::collreport
