// The replay's --ops-csv: one row per op of every rank (op_columns.hpp), each written and flushed
// as it is made, so that whatever was measured survives an interrupted run.
#pragma once

#include <cstdio>
#include <memory>
#include <string>

#include "report/op_columns.hpp"

namespace collbench::replay {

class OpCsvWriter {
 public:
  // Opens (truncates) `path` and writes the header; throws std::runtime_error naming the path.
  explicit OpCsvWriter(const std::string& path);
  void write(const ReplayedOp& replayed);

 private:
  void write_line(const std::string& line);
  struct FileCloser {
    void operator()(std::FILE* file) const { std::fclose(file); }
  };
  std::string path_;
  std::unique_ptr<std::FILE, FileCloser> file_;
};

// One CSV field from a column's value: text as it is (quoted where CSV needs it), numbers as JSON
// writes them, nothing for null.
std::string csv_field(const nlohmann::json& value);

}  // namespace collbench::replay
