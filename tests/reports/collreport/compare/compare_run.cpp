// Rows to reports and through compare, for the compare tests.
#include "collreport/compare/compare_run.hpp"

namespace collbench::collreport {

report::Report as_report(const std::string& name, const std::vector<report::ReportRow>& rows,
                         int version) {
  return report::parse_report(name, fixtures::to_csv(rows, version));
}

Comparison compare_rows(const std::vector<report::ReportRow>& base,
                        const std::vector<report::ReportRow>& fresh, const CompareOptions& options,
                        Versions versions) {
  return compare_reports(as_report("base.csv", base, versions.base),
                         as_report("new.csv", fresh, versions.fresh), options);
}

}  // namespace collbench::collreport
