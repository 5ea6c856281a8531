// CSV report reading with libfccp: header checked against the schema, every field parsed by its
// column's own parser, rows keyed so that a duplicate measurement is caught where it appears.
#include "reports/csv_reader.hpp"

// The reports are small; a reader thread per file would only add a thread to every tool.
#define CSV_IO_NO_THREAD
#include <limits>  // csv.h uses std::numeric_limits without including it
// libfccp copies file names with strncpy into fixed buffers, which GCC flags once inlined here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-truncation"
#include <libfccp/csv.h>
#pragma GCC diagnostic pop

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <sstream>
#include <tuple>
#include <utility>

#include "reports/printable.hpp"
#include "reports/row_key.hpp"
#include "reports/schema.hpp"
#include "reports/text_file.hpp"

namespace collbench::report {
namespace {

// Blank lines are skipped (a report concatenated by hand often ends with one); everything else
// must be a full row. Quoting is RFC 4180's, as CsvWriter writes it.
using CsvParser =
    io::CSVReader<kColumnCount, io::trim_chars<' ', '\t'>, io::double_quote_escape<',', '"'>,
                  io::throw_on_overflow, io::empty_line_comment>;

// A report line is a few hundred bytes; this leaves room for long reasons and extras while
// keeping a corrupt "line" of megabytes out of the CSV parser and out of messages.
constexpr std::size_t kMaxLineBytes = std::size_t{64} << 10;
// How many offending column names a header message lists.
constexpr std::size_t kListedNames = 8;

// Control characters are never part of a report (CsvWriter writes none): a NUL would end the
// line inside the CSV parser and silently drop what follows, others garble the terminal.
// Tab is a field separator's neighbour and CR LF a Windows line end, so those two stay.
void check_characters(const std::string& name, const std::string& text) {
  unsigned line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      ++line;
      line_start = i + 1;
      continue;
    }
    if (i - line_start >= kMaxLineBytes) {
      throw ReportError(name, line, fmt::format("line longer than {} bytes", kMaxLineBytes));
    }
    const bool allowed = c == '\t' || (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n');
    if ((c < 0x20 || c == 0x7f) && !allowed) {
      throw ReportError(
          name, line,
          fmt::format("control character {} at column {} (only tab, and CR before "
                      "LF, may appear in a report)",
                      printable(std::string(1, static_cast<char>(c))), i - line_start + 1));
    }
  }
}

struct TextLine {
  std::string text;
  unsigned number = 0;  // 1-based; 0 when there is no such line
};

bool is_blank(const std::string& line) {
  return line.find_first_not_of(" \t\r") == std::string::npos;
}

// The first non-blank line at or after byte `from`; advances `from` past it and `number` (the
// 1-based number of the last line consumed) to its number.
TextLine next_nonblank_line(const std::string& text, std::size_t& from, unsigned& number) {
  while (from < text.size()) {
    std::size_t end = text.find('\n', from);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(from, end - from);
    from = end + 1;
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!is_blank(line)) return {line, number};
  }
  return {};
}

std::string trim(const std::string& field) {
  const std::size_t begin = field.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  const std::size_t end = field.find_last_not_of(" \t");
  std::string trimmed = field.substr(begin, end - begin + 1);
  if (trimmed.size() >= 2 && trimmed.front() == '"' && trimmed.back() == '"') {
    trimmed = trimmed.substr(1, trimmed.size() - 2);
  }
  return trimmed;
}

// Splits a header line. Column names are plain identifiers, so commas never appear quoted.
std::vector<std::string> split_header(const std::string& line) {
  std::vector<std::string> names;
  std::stringstream stream(line);
  std::string field;
  while (std::getline(stream, field, ',')) names.push_back(trim(field));
  if (!line.empty() && line.back() == ',') names.push_back("");
  return names;
}

std::string quoted_list(const std::vector<std::string>& names) {
  std::string list;
  for (std::size_t i = 0; i < names.size() && i < kListedNames; ++i) {
    list += fmt::format("{}'{}'", i == 0 ? "" : ", ", printable(names[i]));
  }
  if (names.size() > kListedNames) list += fmt::format(" and {} more", names.size() - kListedNames);
  return list;
}

std::string readable_versions() {
  std::string list;
  for (int v = kOldestReadableSchemaVersion; v <= kSchemaVersion; ++v) {
    list += fmt::format("{}{}",
                        v == kOldestReadableSchemaVersion ? ""
                        : v == kSchemaVersion             ? " and "
                                                          : ", ",
                        v);
  }
  return kOldestReadableSchemaVersion == kSchemaVersion ? fmt::format("version {}", list)
                                                        : fmt::format("versions {}", list);
}

bool is_readable_version(int version) {
  return version >= kOldestReadableSchemaVersion && version <= kSchemaVersion;
}

// When the header does not match, a report of another schema version is the likely cause; say so
// when the first data row carries a version this tool does not read.
void throw_if_other_version(const std::string& name, const std::vector<std::string>& header,
                            const TextLine& first_row) {
  std::size_t version_column = header.size();
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == "schema_version") version_column = i;
  }
  if (version_column == header.size() || first_row.number == 0) return;
  const std::vector<std::string> fields = split_header(first_row.text);
  if (version_column >= fields.size()) return;
  const std::string& version = fields[version_column];
  for (int v = kOldestReadableSchemaVersion; v <= kSchemaVersion; ++v) {
    if (version == std::to_string(v)) return;
  }
  throw ReportError(name, first_row.number,
                    fmt::format("unknown schema version '{}' (this tool reads {})",
                                printable(version), readable_versions()));
}

// The columns of schema version `version` that `seen` lacks, in schema order.
std::vector<std::string> missing_columns(const std::map<std::string, int>& seen, int version) {
  std::vector<std::string> missing;
  for (const Column& column : kColumns) {
    if (in_version(column, version) && seen.count(column.name) == 0) missing.push_back(column.name);
  }
  return missing;
}

// The version a header was meant to be: the newest that added one of its known columns. Messages
// compare the header with it, so a version 1 report with a typo is not told it lacks version 2.
int intended_version(const std::map<std::string, int>& seen) {
  int version = kOldestReadableSchemaVersion;
  for (const Column& column : kColumns) {
    if (seen.count(column.name) > 0) version = std::max(version, column.since);
  }
  return version;
}

// A header that holds every column of the version before `version` and only some of the columns
// `version` added: columns of two versions mixed (a hand-merged file, a half-updated script).
std::string mixed_versions_problem(const std::map<std::string, int>& seen, int version) {
  if (version == kOldestReadableSchemaVersion || !missing_columns(seen, version - 1).empty()) {
    return "";
  }
  std::vector<std::string> added_present;
  for (const Column& column : kColumns) {
    if (column.since == version && seen.count(column.name) > 0)
      added_present.push_back(column.name);
  }
  return fmt::format(
      "header mixes schema versions {} and {}: it has version {}'s columns {} but lacks {}",
      version - 1, version, version, quoted_list(added_present),
      quoted_list(missing_columns(seen, version)));
}

// Checks the header against the schema versions this tool reads and returns the version whose
// columns it holds. Otherwise it names every missing, extra and duplicated column against the
// version the header was meant to be (libfccp stops at the first), or says that it mixes two
// versions; the row parser's own header check then cannot fail.
int check_header(const std::string& name, const std::string& text) {
  // A UTF-8 byte order mark, as spreadsheet programs write, is skipped (libfccp skips it too).
  std::size_t offset = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
  unsigned number = 0;
  const TextLine header_line = next_nonblank_line(text, offset, number);
  if (header_line.number == 0) throw ReportError(name, 1, "empty file (no header line)");

  const std::vector<std::string> header = split_header(header_line.text);
  std::map<std::string, int> seen;
  std::vector<std::string> extra, duplicated;
  for (const std::string& column : header) {
    if (++seen[column] == 2) duplicated.push_back(column);
    if (column_index(column) == kColumnCount && seen[column] == 1) extra.push_back(column);
  }
  const int version = intended_version(seen);
  const std::vector<std::string> missing = missing_columns(seen, version);
  if (missing.empty() && extra.empty() && duplicated.empty()) return version;

  throw_if_other_version(name, header, next_nonblank_line(text, offset, number));
  if (extra.empty() && duplicated.empty()) {
    const std::string mixed = mixed_versions_problem(seen, version);
    if (!mixed.empty()) throw ReportError(name, header_line.number, mixed);
  }
  std::string problems;
  auto add = [&problems](const char* what, const std::vector<std::string>& names) {
    if (names.empty()) return;
    problems += fmt::format("{}{} {}", problems.empty() ? "" : "; ", what, quoted_list(names));
  };
  add("missing columns", missing);
  add("extra columns", extra);
  add("duplicated columns", duplicated);
  throw ReportError(name, header_line.number,
                    fmt::format("header does not match schema version {}: {}", version, problems));
}

// An older version's header lacks the newer columns; their fields stay unset.
template <std::size_t... I>
void read_schema_header(CsvParser& parser, int version, std::index_sequence<I...>) {
  parser.read_header(version == kSchemaVersion ? io::ignore_no_column : io::ignore_missing_column,
                     std::string(kColumns[I].name)...);
}

// libfccp's messages repeat the file and line we already print; keep only what went wrong.
std::string libfccp_problem(const io::error::base& error, int version) {
  std::size_t columns = 0;
  for (const Column& column : kColumns) columns += in_version(column, version) ? 1 : 0;
  if (dynamic_cast<const io::error::too_few_columns*>(&error)) {
    return fmt::format("too few fields (schema version {} has {} columns)", version, columns);
  }
  if (dynamic_cast<const io::error::too_many_columns*>(&error)) {
    return fmt::format("too many fields (schema version {} has {} columns)", version, columns);
  }
  if (dynamic_cast<const io::error::escaped_string_not_closed*>(&error)) {
    return "quoted field not closed (line breaks inside fields are not supported)";
  }
  return printable(error.what(), 200);
}

ReportRow parse_fields(const std::string& name, unsigned line, int version,
                       const std::array<std::string, kColumnCount>& fields) {
  ReportRow row;
  auto parse_column = [&](std::size_t index) {
    try {
      kColumns[index].parse(row, fields[index]);
      kColumns[index].check(row);
    } catch (const ColumnParseError& error) {
      throw ReportError(name, line,
                        fmt::format("column '{}': {}", kColumns[index].name, error.what()));
    }
  };
  // The version first: in a report of another version, the other fields mean something else.
  const std::size_t version_index = column_index("schema_version");
  parse_column(version_index);
  if (!is_readable_version(row.schema_version)) {
    throw ReportError(name, line,
                      fmt::format("unknown schema version '{}' (this tool reads {})",
                                  printable(fields[version_index]), readable_versions()));
  }
  if (row.schema_version != version) {
    throw ReportError(name, line,
                      fmt::format("schema version {} in a report whose header is version {}",
                                  row.schema_version, version));
  }
  for (std::size_t i = 0; i < kColumnCount; ++i) {
    if (in_version(kColumns[i], version)) parse_column(i);
  }
  return row;
}

}  // namespace

ReportError::ReportError(const std::string& file, unsigned line, const std::string& message)
    // The path came from a command line or a script: escaped like any other value quoted.
    : std::runtime_error(line > 0 ? fmt::format("{}:{}: {}", printable(file, 200), line, message)
                                  : fmt::format("{}: {}", printable(file, 200), message)),
      file_(file),
      line_(line) {}

Report parse_report(const std::string& name, const std::string& text) {
  check_characters(name, text);
  const int version = check_header(name, text);
  CsvParser parser(name, text.data(), text.data() + text.size());
  Report report{name, {}};
  std::map<RowKey, unsigned> line_of_key;
  std::array<std::string, kColumnCount> fields;
  try {
    read_schema_header(parser, version, std::make_index_sequence<kColumnCount>{});
    auto read_row = [&parser](auto&... field) { return parser.read_row(field...); };
    while (std::apply(read_row, fields)) {
      const unsigned line = parser.get_file_line();
      ReportLine entry{parse_fields(name, line, version, fields), line};
      const auto [previous, inserted] = line_of_key.emplace(row_key(entry.row), line);
      if (!inserted) {
        throw ReportError(name, line,
                          fmt::format("duplicate row: same independent variables as line {} ({})",
                                      previous->second, describe_key(previous->first)));
      }
      report.rows.push_back(std::move(entry));
    }
  } catch (const io::error::base& error) {
    throw ReportError(name, parser.get_file_line(), libfccp_problem(error, version));
  }
  if (report.rows.empty()) {
    throw ReportError(name, parser.get_file_line() + 1, "no data rows after the header");
  }
  return report;
}

std::string read_report_text(const std::string& path) {
  try {
    return read_text_file(path, kMaxReportBytes);
  } catch (const TextFileError& error) {
    throw ReportError(path, 0, error.what());
  }
}

Report read_report(const std::string& path) {
  return parse_report(path, read_report_text(path));
}

}  // namespace collbench::report
