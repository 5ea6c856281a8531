// CSV writing for collbench reports; every row reaches the file before write() returns.
#include "reports/csv_writer.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "reports/schema.hpp"

namespace collbench::report {

std::string csv_escape(const std::string& field) {
  std::string text;
  bool needs_quotes = false;
  for (char c : field) {
    const unsigned char byte = static_cast<unsigned char>(c);
    // One record per line, and no control characters (readers refuse them): they become spaces.
    const char written = (byte < 0x20 && c != '\t') || byte == 0x7f ? ' ' : c;
    needs_quotes = needs_quotes || written == ',' || written == '"';
    if (written == '"') text += '"';
    text += written;
  }
  // Readers trim unquoted fields, so leading or trailing blanks survive only inside quotes.
  auto blank = [](char c) { return c == ' ' || c == '\t'; };
  needs_quotes = needs_quotes || (!text.empty() && (blank(text.front()) || blank(text.back())));
  return needs_quotes ? '"' + text + '"' : text;
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
    throw std::runtime_error(
        fmt::format("cannot open CSV file '{}': {}", path, std::strerror(errno)));
  }
  write_line(header_line());
}

void CsvWriter::write(const ReportRow& row) {
  write_line(format_row(row));
}

void CsvWriter::write_line(const std::string& line) {
  if (std::fprintf(file_.get(), "%s\n", line.c_str()) < 0 || std::fflush(file_.get()) != 0) {
    throw std::runtime_error(
        fmt::format("cannot write CSV file '{}': {}", path_, std::strerror(errno)));
  }
}

}  // namespace collbench::report
