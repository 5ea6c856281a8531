// Line and field edits on report text, for building malformed reports from valid ones in tests.
#pragma once

#include <string>
#include <vector>

namespace collbench::fixtures {

std::vector<std::string> split_lines(const std::string& text);
// Joins with '\n' and ends with one.
std::string join_lines(const std::vector<std::string>& lines);
// `line` with the field of schema column `column` replaced (fields hold no commas in fixtures).
std::string with_field(const std::string& line, const std::string& column,
                       const std::string& value);
// A file written under the test's temporary directory; returns its path.
std::string write_temp_file(const std::string& name, const std::string& text);
std::string read_file(const std::string& path);

}  // namespace collbench::fixtures
