// Writing the replay's op rows.
#include "report/op_csv.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "reports/csv_writer.hpp"

namespace collbench::replay {

std::string csv_field(const nlohmann::json& value) {
  if (value.is_null()) return "";
  if (value.is_string()) return report::csv_escape(value.get<std::string>());
  return value.dump();
}

OpCsvWriter::OpCsvWriter(const std::string& path)
    : path_(path), file_(std::fopen(path.c_str(), "w")) {
  if (!file_) {
    throw std::runtime_error(
        fmt::format("cannot write --ops-csv '{}': {}", path, std::strerror(errno)));
  }
  std::vector<std::string> names;
  for (const OpColumn& column : op_columns()) names.emplace_back(column.name);
  write_line(fmt::format("{}", fmt::join(names, ",")));
}

void OpCsvWriter::write(const ReplayedOp& replayed) {
  std::vector<std::string> fields;
  for (const OpColumn& column : op_columns()) fields.push_back(csv_field(column.value(replayed)));
  write_line(fmt::format("{}", fmt::join(fields, ",")));
}

void OpCsvWriter::write_line(const std::string& line) {
  if (std::fprintf(file_.get(), "%s\n", line.c_str()) < 0 || std::fflush(file_.get()) != 0) {
    throw std::runtime_error(
        fmt::format("cannot write --ops-csv '{}': {}", path_, std::strerror(errno)));
  }
}

}  // namespace collbench::replay
