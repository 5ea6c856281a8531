// Compares rows in memory as `collreport compare` compares files: each side written as a report
// of the given schema version and read back, so both go through the reader as files would.
#pragma once

#include <string>
#include <vector>

#include "compare/compare.hpp"
#include "support/fixture_reports.hpp"

namespace collbench::collreport {

report::Report as_report(const std::string& name, const std::vector<report::ReportRow>& rows,
                         int version = report::kSchemaVersion);

struct Versions {
  int base = report::kSchemaVersion;
  int fresh = report::kSchemaVersion;
};

Comparison compare_rows(const std::vector<report::ReportRow>& base,
                        const std::vector<report::ReportRow>& fresh,
                        const CompareOptions& options = {}, Versions versions = {});

}  // namespace collbench::collreport
