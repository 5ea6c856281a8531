// Merging of reports.
#include "rows/merge.hpp"

#include <fmt/format.h>

#include <map>
#include <utility>

#include "csv_writer.hpp"
#include "row_key.hpp"
#include "schema.hpp"

namespace collbench::collreport {

report::Report merge_reports(const std::vector<report::Report>& reports, const std::string& name) {
  report::Report merged{name, {}};
  std::map<report::RowKey, std::pair<const std::string*, unsigned>> origin_of_key;
  for (const report::Report& input : reports) {
    for (const report::ReportLine& line : input.rows) {
      const auto [previous, inserted] =
          origin_of_key.emplace(report::row_key(line.row), std::make_pair(&input.path, line.line));
      if (!inserted) {
        throw report::ReportError(
            input.path, line.line,
            fmt::format("duplicate row: same independent variables as {}:{} ({})",
                        *previous->second.first, previous->second.second,
                        report::describe_key(previous->first)));
      }
      merged.rows.push_back(line);
    }
  }
  return merged;
}

std::string report_csv(const report::Report& report) {
  std::string text = report::header_line() + "\n";
  for (const report::ReportLine& line : report.rows) text += report::format_row(line.row) + "\n";
  return text;
}

}  // namespace collbench::collreport
