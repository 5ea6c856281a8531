// Merging of reports.
#include "rows/merge.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>

#include "reports/csv_writer.hpp"
#include "reports/row_key.hpp"
#include "reports/schema.hpp"

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

report::Report merge_as_passes(std::vector<report::Report> reports, const std::string& name) {
  int passes_before = 0;
  for (report::Report& input : reports) {
    int last_pass = 0;
    for (report::ReportLine& line : input.rows) {
      last_pass = std::max(last_pass, line.row.repeat);
      line.row.repeat += passes_before;
    }
    if (!input.rows.empty()) passes_before += last_pass + 1;
  }
  return merge_reports(reports, name);
}

bool has_config_setting(const report::Report& report, const std::string& setting) {
  const std::string prefix = setting + "=";
  for (const report::ReportLine& line : report.rows) {
    const std::string& config = line.row.config;
    for (std::size_t at = config.find(prefix); at != std::string::npos;
         at = config.find(prefix, at + 1)) {
      if (at == 0 || config[at - 1] == ';') return true;
    }
  }
  return false;
}

report::Report without_config_setting(report::Report report, const std::string& setting) {
  const std::string prefix = setting + "=";
  std::map<report::RowKey, unsigned> line_of_key;
  for (report::ReportLine& line : report.rows) {
    const std::string& config = line.row.config;
    std::string kept;
    for (std::size_t start = 0; start < config.size();) {
      const std::size_t end = std::min(config.find(';', start), config.size());
      const std::string part = config.substr(start, end - start);
      if (!part.empty() && part.compare(0, prefix.size(), prefix) != 0) {
        kept += (kept.empty() ? "" : ";") + part;
      }
      start = end + 1;
    }
    line.row.config = kept;
    const auto [first, inserted] = line_of_key.emplace(report::row_key(line.row), line.line);
    if (!inserted) {
      throw report::ReportError(
          report.path, line.line,
          fmt::format("with {} set aside (--across), the same case as line {} ({})", setting,
                      first->second, report::describe_key(first->first)));
    }
  }
  return report;
}

std::string report_csv(const report::Report& report) {
  std::string text = report::header_line() + "\n";
  for (const report::ReportLine& line : report.rows) text += report::format_row(line.row) + "\n";
  return text;
}

}  // namespace collbench::collreport
