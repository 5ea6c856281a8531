// Merging of reports.
#include "rows/merge.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>

#include "reports/csv_writer.hpp"
#include "reports/key_values.hpp"
#include "reports/row_key.hpp"
#include "reports/schema.hpp"

namespace collbench::collreport {
namespace {

// Throws report::ReportError at the second row of one row key among `reports` (file and line of
// that row), its message from describe(the first row, the first row's file).
template <typename Describe>
void refuse_repeated_cases(const std::vector<const report::Report*>& reports, Describe describe) {
  std::map<report::RowKey, std::pair<const report::ReportLine*, const std::string*>> first_of_key;
  for (const report::Report* input : reports) {
    for (const report::ReportLine& line : input->rows) {
      const auto [first, inserted] =
          first_of_key.emplace(report::row_key(line.row), std::make_pair(&line, &input->path));
      if (!inserted) {
        throw report::ReportError(input->path, line.line,
                                  describe(*first->second.first, *first->second.second));
      }
    }
  }
}

}  // namespace

report::Report merge_reports(const std::vector<report::Report>& reports, const std::string& name) {
  std::vector<const report::Report*> inputs;
  for (const report::Report& input : reports) inputs.push_back(&input);
  refuse_repeated_cases(inputs, [](const report::ReportLine& first, const std::string& first_path) {
    return fmt::format("duplicate row: same independent variables as {}:{} ({})", first_path,
                       first.line, report::describe_key(report::row_key(first.row)));
  });
  report::Report merged{name, {}};
  for (const report::Report& input : reports) {
    merged.rows.insert(merged.rows.end(), input.rows.begin(), input.rows.end());
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
  return std::any_of(report.rows.begin(), report.rows.end(), [&](const report::ReportLine& line) {
    return report::key_value(line.row.config, setting).has_value();
  });
}

report::Report without_config_setting(report::Report report, const std::string& setting) {
  for (report::ReportLine& line : report.rows) {
    line.row.config = report::without_key(line.row.config, setting);
  }
  refuse_repeated_cases({&report}, [&](const report::ReportLine& first, const std::string&) {
    return fmt::format("with {} set aside (--across), the same case as line {} ({})", setting,
                       first.line, report::describe_key(report::row_key(first.row)));
  });
  return report;
}

std::string report_csv(const report::Report& report) {
  std::string text = report::header_line() + "\n";
  for (const report::ReportLine& line : report.rows) text += report::format_row(line.row) + "\n";
  return text;
}

}  // namespace collbench::collreport
