// A plain table of strings and its two renderings: aligned text for a terminal, Markdown for CI.
#pragma once

#include <string>
#include <vector>

namespace collbench::collreport {

enum class Align { kLeft, kRight };

struct Table {
  struct Column {
    std::string title;
    Align align = Align::kLeft;
  };
  std::vector<Column> columns;
  std::vector<std::vector<std::string>> rows;  // each as many cells as there are columns

  void add_row(std::vector<std::string> cells);  // throws std::logic_error on a wrong cell count
};

// Columns padded to their widest cell, two spaces apart, a dashed line under the titles.
std::string render_text(const Table& table);
// A GitHub-flavoured Markdown table; '|' inside cells is escaped.
std::string render_markdown(const Table& table);

}  // namespace collbench::collreport
