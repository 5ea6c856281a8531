// Reading and writing for the subcommands.
#include "commands/command_io.hpp"

#include <fmt/format.h>

#include <fstream>
#include <stdexcept>

#include "reports/sample_file.hpp"
#include "rows/merge.hpp"

namespace collbench::collreport {

void print_warnings(const std::vector<std::string>& warnings, std::ostream& err) {
  for (const std::string& warning : warnings) err << "collreport: warning: " << warning << "\n";
}

report::Report read_reports_or_samples(const std::vector<std::string>& paths, std::ostream& err) {
  std::vector<report::Report> reports;
  std::vector<std::string> warnings;
  for (const std::string& path : paths) reports.push_back(report::read_report_rows(path, warnings));
  print_warnings(warnings, err);
  return reports.size() == 1 ? reports.front() : merge_reports(reports, "merged reports");
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << text;
  file.flush();
  if (!file) throw std::runtime_error(fmt::format("cannot write '{}'", path));
}

void write_file_or_print(const std::string& path, const std::string& text, std::ostream& out) {
  if (path.empty()) {
    out << text;
  } else {
    write_file(path, text);
  }
}

}  // namespace collbench::collreport
