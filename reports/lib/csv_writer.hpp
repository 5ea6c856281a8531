// Writes ReportRows as CSV: header first, one row per call, flushed at once so nothing measured is
// lost.
#pragma once

#include <cstdio>
#include <memory>
#include <ostream>
#include <string>

#include "reports/report_row.hpp"

namespace collbench::report {

// Quotes a field when it holds a comma or quote, or starts or ends with a blank (RFC 4180);
// line breaks and other control characters but tab become spaces, so that every record stays on
// one line and reads back.
std::string csv_escape(const std::string& field);
// One CSV line (no newline) for `row` in schema order.
std::string format_row(const ReportRow& row);

class CsvWriter {
 public:
  // Opens (truncates) `path` and writes the header; throws std::runtime_error naming the path on
  // failure.
  explicit CsvWriter(const std::string& path);
  void write(const ReportRow& row);
  const std::string& path() const { return path_; }

 private:
  struct FileCloser {
    void operator()(std::FILE* file) const { std::fclose(file); }
  };
  void write_line(const std::string& line);
  std::string path_;
  std::unique_ptr<std::FILE, FileCloser> file_;
};

}  // namespace collbench::report
