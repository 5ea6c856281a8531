// `collreport beside`: collbench's NCCL rows (algo nccl) beside nccl-tests' (algo nccl-tests,
// written by `collreport nccl-tests`), matched on every independent variable but algo, with a
// verdict per row on whether the two tools agree within the tolerances of the row's size.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "reports/csv_reader.hpp"
#include "reports/row_key.hpp"

namespace collbench::collreport {

// Mean against mean: nccl-tests prints the mean time over its timed iterations and busbw from
// it; collbench's time_us_mean and busbw_gbps are the same quantities. Differences are collbench
// less nccl-tests, relative ones relative to nccl-tests. Bounds are inclusive.
struct BesideOptions {
  // Sizes of at least busbw_from_bytes: busbw within +-busbw_tolerance (a fraction).
  double busbw_tolerance = 0.03;
  std::uint64_t busbw_from_bytes = std::uint64_t{64} << 20;
  // Sizes below time_below_bytes: mean time within +-time_tolerance_us or +-time_tolerance.
  double time_tolerance_us = 0.5;
  double time_tolerance = 0.05;
  std::uint64_t time_below_bytes = std::uint64_t{64} << 10;
};

// In the order rows are counted: what needs attention first.
enum class BesideVerdict {
  kOutside,      // a judged quantity differs by more than its tolerance
  kWithin,       // every judged quantity within its tolerance
  kNotJudged,    // measured on both sides, at a size no tolerance covers (or busbw 0)
  kNotMeasured,  // matched, but a side is not ok (skipped, failed) or has no time
  kUnmatched,    // on one side only
};
const char* beside_verdict_name(BesideVerdict verdict);

struct BesideRow {
  report::RowKey key;  // algo empty
  std::optional<report::ReportLine> collbench;
  std::optional<report::ReportLine> nccl_tests;
  BesideVerdict verdict = BesideVerdict::kUnmatched;
  bool measured_both = false;  // both ok with a time: the differences below are set
  bool busbw_judged = false;
  bool time_judged = false;
  double busbw_change = 0;        // (collbench - nccl-tests) / nccl-tests; 0 when nccl-tests' is 0
  double time_difference_us = 0;  // collbench - nccl-tests
  double time_change = 0;         // time_difference_us / nccl-tests' time
  std::string note;
};

struct Beside {
  std::vector<BesideRow> rows;  // in key order
  std::size_t count(BesideVerdict verdict) const;
  std::size_t only_in_collbench() const;
  std::size_t only_in_nccl_tests() const;
  int exit_code() const { return count(BesideVerdict::kOutside) > 0 ? 1 : 0; }
};

// |difference| <= tolerance, with a slack of a billionth for the decimals of the inputs (12.34 -
// 11.84 is 0.5000000000000018 in binary).
bool within_tolerance(double difference, double tolerance);

// Matches and judges. Throws report::ReportError when a side holds no row of its algo, and
// NothingComparedError (compare.hpp) when no row matches or no matched row could be judged: a
// table that judged nothing cannot vouch for agreement.
Beside beside_reports(const report::Report& collbench, const report::Report& nccl_tests,
                      const BesideOptions& options);

}  // namespace collbench::collreport
