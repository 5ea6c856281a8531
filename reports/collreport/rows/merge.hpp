// `collreport merge`: concatenates reports of the one schema, refusing a measurement that
// appears in two of them (a merged report must stay valid input for compare and summary).
#pragma once

#include <string>
#include <vector>

#include "reports/csv_reader.hpp"

namespace collbench::collreport {

// Rows of every report in input order; throws report::ReportError at the second occurrence of a
// row key, naming the file and line of the first. The result's path is `name`.
report::Report merge_reports(const std::vector<report::Report>& reports, const std::string& name);
// The reports as passes of one run (`--repeat` across processes): each report's passes are
// renumbered after the passes of the reports before it, so that compare and summary pool a
// case over every process that measured it. Then merged as merge_reports does.
report::Report merge_as_passes(std::vector<report::Report> reports, const std::string& name);
// `report` with `setting=VALUE` taken out of every row's config ("a2av_spread=1;nccl_proto=Simple"
// -> "a2av_spread=1" for "nccl_proto"; empty parts go too), so that runs differing only in that
// setting pair up row by row; throws report::ReportError when two rows of `report` then become
// one measurement. A setting collbench writes as two parts (split=...;groups=N) leaves the other.
report::Report without_config_setting(report::Report report, const std::string& setting);
// Whether any row's config holds `setting=VALUE`.
bool has_config_setting(const report::Report& report, const std::string& setting);
// A whole CSV file: the schema header and one line per row, as CsvWriter writes them.
std::string report_csv(const report::Report& report);

}  // namespace collbench::collreport
