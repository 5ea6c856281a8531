// What several subcommands do with their files: read reports, write results, pass on warnings.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "reports/csv_reader.hpp"

namespace collbench::collreport {

// Each warning as "collreport: warning: ..." on `err`.
void print_warnings(const std::vector<std::string>& warnings, std::ostream& err);

// CSV reports or sample files, merged when several; a sample file's cut-off last line is a
// warning on `err`.
report::Report read_reports_or_samples(const std::vector<std::string>& paths, std::ostream& err);

// Throws std::runtime_error naming `path` when it cannot be written whole.
void write_file(const std::string& path, const std::string& text);

// `text` to `path`, or to `out` when `path` is empty.
void write_file_or_print(const std::string& path, const std::string& text, std::ostream& out);

}  // namespace collbench::collreport
