// Report text edits and temporary files for the report tests.
#include "support/csv_text.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "reports/schema.hpp"

namespace collbench::fixtures {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream stream(text);
  std::string line;
  while (std::getline(stream, line)) lines.push_back(line);
  return lines;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  return text;
}

std::string with_field(const std::string& line, const std::string& column,
                       const std::string& value) {
  const std::size_t index = report::column_index(column);
  if (index == report::kColumnCount) throw std::invalid_argument("no column " + column);
  std::size_t begin = 0;
  for (std::size_t i = 0; i < index; ++i) begin = line.find(',', begin) + 1;
  const std::size_t end = std::min(line.find(',', begin), line.size());
  return line.substr(0, begin) + value + line.substr(end);
}

std::string write_temp_file(const std::string& name, const std::string& text) {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string path = ::testing::TempDir() + "collreport_" + test->test_suite_name() + "_" +
                           test->name() + "_" + name;
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << text;
  if (!file) throw std::runtime_error("cannot write " + path);
  return path;
}

std::string read_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error("cannot read " + path);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

}  // namespace collbench::fixtures
