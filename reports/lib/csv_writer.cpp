// CSV writing for collbench reports; every row reaches the file before write() returns.
#include "csv_writer.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "schema.hpp"

namespace collbench::report {

std::string csv_escape(const std::string& field) {
  if (field.find_first_of(",\"\r\n") == std::string::npos) return field;
  std::string quoted = "\"";
  for (char c : field) {
    if (c == '"') quoted += '"';
    // One record per line, so line-oriented readers (and grep) keep working: breaks become spaces.
    quoted += (c == '\r' || c == '\n') ? ' ' : c;
  }
  quoted += '"';
  return quoted;
}

std::string format_row(const ReportRow& row) {
  std::string line;
  for (const Column& column : kColumns) {
    if (!line.empty()) line += ',';
    line += csv_escape(column.format(row));
  }
  return line;
}

CsvWriter::CsvWriter(const std::string& path) : path_(path), file_(std::fopen(path.c_str(), "w")) {
  if (!file_) {
    throw std::runtime_error(fmt::format("cannot open CSV file '{}': {}", path, std::strerror(errno)));
  }
  write_line(header_line());
}

void CsvWriter::write(const ReportRow& row) { write_line(format_row(row)); }

void CsvWriter::write_line(const std::string& line) {
  if (std::fprintf(file_.get(), "%s\n", line.c_str()) < 0 || std::fflush(file_.get()) != 0) {
    throw std::runtime_error(fmt::format("cannot write CSV file '{}': {}", path_, std::strerror(errno)));
  }
}

}  // namespace collbench::report
