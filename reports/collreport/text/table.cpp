// Text and Markdown rendering of tables.
#include "text/table.hpp"

#include <algorithm>
#include <stdexcept>

namespace collbench::collreport {

void Table::add_row(std::vector<std::string> cells) {
  if (cells.size() != columns.size()) {
    throw std::logic_error("table row has " + std::to_string(cells.size()) + " cells for " +
                           std::to_string(columns.size()) + " columns");
  }
  rows.push_back(std::move(cells));
}

namespace {

// Characters on a terminal: UTF-8 continuation bytes ("±" is two bytes) take no column.
std::size_t display_width(const std::string& text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

std::string markdown_cell(const std::string& cell) {
  std::string escaped;
  for (char c : cell) {
    if (c == '|') escaped += '\\';
    escaped += c;
  }
  return escaped;
}

}  // namespace

std::string render_text(const Table& table) {
  std::vector<std::size_t> widths;
  for (const Table::Column& column : table.columns) widths.push_back(display_width(column.title));
  for (const auto& row : table.rows) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      widths[i] = std::max(widths[i], display_width(row[i]));
    }
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string text;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const std::string padding(widths[i] - display_width(cells[i]), ' ');
      if (i > 0) text += "  ";
      text += table.columns[i].align == Align::kRight ? padding + cells[i] : cells[i] + padding;
    }
    text.erase(text.find_last_not_of(' ') + 1);
    return text + "\n";
  };
  std::vector<std::string> titles, rules;
  for (std::size_t i = 0; i < table.columns.size(); ++i) {
    titles.push_back(table.columns[i].title);
    rules.push_back(std::string(widths[i], '-'));
  }
  std::string text = line(titles) + line(rules);
  for (const auto& row : table.rows) text += line(row);
  return text;
}

std::string render_markdown(const Table& table) {
  std::string text = "|";
  std::string rule = "|";
  for (const Table::Column& column : table.columns) {
    text += " " + markdown_cell(column.title) + " |";
    rule += column.align == Align::kRight ? " ---: |" : " --- |";
  }
  text += "\n" + rule + "\n";
  for (const auto& row : table.rows) {
    text += "|";
    for (const std::string& cell : row) text += " " + markdown_cell(cell) + " |";
    text += "\n";
  }
  return text;
}

}  // namespace collbench::collreport
