// `collreport merge`: concatenates reports of the one schema, refusing a measurement that
// appears in two of them (a merged report must stay valid input for compare and summary).
#pragma once

#include <string>
#include <vector>

#include "csv_reader.hpp"

namespace collbench::collreport {

// Rows of every report in input order; throws report::ReportError at the second occurrence of a
// row key, naming the file and line of the first. The result's path is `name`.
report::Report merge_reports(const std::vector<report::Report>& reports, const std::string& name);
// A whole CSV file: the schema header and one line per row, as CsvWriter writes them.
std::string report_csv(const report::Report& report);

}  // namespace collbench::collreport
