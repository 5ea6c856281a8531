// `collreport nccl-tests`: nccl-tests' runs as report rows (algo nccl-tests), so that its numbers
// stand beside collbench's in one schema and `collreport beside` can match them row by row.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "reports/csv_reader.hpp"
#include "reports/nccl_tests_output.hpp"
#include "reports/row_key.hpp"

namespace collbench::collreport {

inline constexpr const char* kNcclTestsAlgo = "nccl-tests";

// Throws std::invalid_argument naming `what` unless `config` is empty or key=value;... with keys
// of a-z, 0-9 and _ ("register=local", "split=MOD 2;groups=2"), as collbench's config column is.
void check_config_text(const std::string& config, const std::string& what);

// Converts runs into rows, numbering the measurements of one case across everything added: the
// first gets repeat 0, a second (nccl-tests -N 2, or the same run twice) repeat 1, and so on.
class NcclTestsConverter {
 public:
  // `config` goes into every row's config column: what nccl-tests' output does not say (-R,
  // NCCL_TESTS_SPLIT, the alltoallv spread) but collbench's rows name.
  explicit NcclTestsConverter(std::string config);

  // Two rows per data line: out of place, then in place, `timestamp` (ISO 8601 UTC) in each.
  // Throws report::ReportError naming the file and line for a binary collbench has no op for, or
  // a value outside the schema's domain. Lines of a type or reduction collbench lacks (fp8,
  // mulsum) are left out with a warning.
  void add(const report::NcclTestsOutput& output, const std::string& timestamp);

  // The rows, each with its nccl-tests line, in file order.
  const report::Report& report() const { return report_; }
  // One line per file and thing left out: "FILE:LINE: 12 data lines of type f8e4m3 left out ...".
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  void add_run(const report::NcclTestsRun& run, const std::string& path,
               const std::string& timestamp);
  void add_row(report::ReportRow row, unsigned line, const std::string& path);

  std::string config_;
  report::Report report_;
  std::map<report::RowKey, int> passes_;  // case key -> measurements so far
  std::vector<std::string> warnings_;
};

// The file's modification time as ISO 8601 UTC ("2026-11-22T14:27:21Z"): when nccl-tests
// finished writing it. Throws report::ReportError naming the path when it cannot be read.
std::string file_modified_utc(const std::string& path);

}  // namespace collbench::collreport
