// Reads collbench CSV reports back into ReportRows through the schema table, rejecting anything
// a tool could misread: wrong schema version, missing or extra columns, bad values, duplicates.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "reports/report_row.hpp"

namespace collbench::report {

// A bad report. what() is one line: "FILE:LINE: what is wrong", naming the bad value.
class ReportError : public std::runtime_error {
 public:
  ReportError(const std::string& file, unsigned line, const std::string& message);
  const std::string& file() const { return file_; }
  unsigned line() const { return line_; }

 private:
  std::string file_;
  unsigned line_;
};

// A row with the file line it came from (1 = the header), for messages that point back at it.
struct ReportLine {
  ReportRow row;
  unsigned line = 0;
};

struct Report {
  std::string path;
  std::vector<ReportLine> rows;  // in file order
};

// The contents of the report file at `path` (at most kMaxReportBytes, text_file.hpp); throws
// ReportError naming the path when it cannot be read. How every report reader reads its file.
std::string read_report_text(const std::string& path);

// Reads and validates the report at `path`; throws ReportError on any problem.
Report read_report(const std::string& path);
// The same for report text already in memory; `name` stands for the file in messages.
Report parse_report(const std::string& name, const std::string& text);

}  // namespace collbench::report
