// The independent variables of a report row: what identifies one measurement across runs and files.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>

#include "reports/report_row.hpp"

namespace collbench::report {

// Two rows with equal keys measured the same thing; compare matches rows on it, and a report
// holding two rows with one key is invalid (which of them would a comparison believe?).
struct RowKey {
  std::string op;
  std::string algo;
  int ranks = 0;
  std::string dtype;
  std::string redop;
  int root = 0;
  bool in_place = false;
  std::uint64_t bytes = 0;
  int graph = 0;
  int agg_iters = 1;
  std::string config;
  int repeat = 0;  // the pass of --repeat: one case measured in several passes has one key each

  auto tied() const {
    return std::tie(op, algo, ranks, dtype, redop, root, in_place, bytes, graph, agg_iters, config,
                    repeat);
  }
  friend bool operator<(const RowKey& a, const RowKey& b) { return a.tied() < b.tied(); }
  friend bool operator==(const RowKey& a, const RowKey& b) { return a.tied() == b.tied(); }
  friend bool operator!=(const RowKey& a, const RowKey& b) { return !(a == b); }
};

RowKey row_key(const ReportRow& row);
// The key of the case a row measures: every independent variable but the pass (repeat = 0), so
// that the passes of `collbench --repeat N` share it.
RowKey case_key(const ReportRow& row);
// The key of the curve a row belongs to: every independent variable but the size (bytes = 0).
RowKey series_key(const ReportRow& row);

// The settings beyond op, algo, ranks, dtype and size that differ from the usual run, e.g.
// "max in_place graph=10"; empty for a plain out-of-place sum launched normally.
std::string variant_label(const RowKey& key);
// One line naming every independent variable, for error messages.
std::string describe_key(const RowKey& key);

}  // namespace collbench::report
