// The CSV schema: every column's name, how it is written and how it is read back, in one table.
#pragma once

#include <array>
#include <stdexcept>
#include <string>
#include <string_view>

#include "report_row.hpp"

namespace collbench::report {

struct Column {
  const char* name;
  std::string (*format)(const ReportRow& row);
  // Throws ColumnParseError when `text` is not a valid value for the column.
  void (*parse)(ReportRow& row, const std::string& text);
};

inline constexpr std::size_t kColumnCount = 36;
extern const std::array<Column, kColumnCount> kColumns;

class ColumnParseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The header line's column names, comma separated, in schema order.
std::string header_line();
// Index of a column by name, or kColumnCount when there is none.
std::size_t column_index(std::string_view name);

}  // namespace collbench::report
