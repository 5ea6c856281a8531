// Sample file reading: one JSON object per line, the run line first, every case's row read through
// the schema's column checks and its sample arrays checked against the row.
#include "reports/sample_file.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>
#include <string_view>
#include <utility>

#include "reports/json_row.hpp"
#include "reports/printable.hpp"
#include "reports/row_key.hpp"
#include "reports/schema.hpp"

namespace collbench::report {
namespace {

using nlohmann::json;

// A problem with one line; the reader adds the file and line.
class LineError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct TextLine {
  std::string_view text;  // inside the file's text
  unsigned number = 0;
  bool ends_file_unterminated = false;  // the file's last line, with no newline after it
};

// The non-blank lines of `text` with their 1-based numbers.
std::vector<TextLine> nonblank_lines(const std::string& text) {
  std::vector<TextLine> lines;
  unsigned number = 0;
  for (std::size_t from = 0; from < text.size();) {
    std::size_t end = text.find('\n', from);
    const bool terminated = end != std::string::npos;
    if (!terminated) end = text.size();
    ++number;
    const std::string_view line(text.data() + from, end - from);
    if (line.find_first_not_of(" \t\r") != std::string_view::npos) {
      lines.push_back({line, number, !terminated});
    }
    from = end + 1;
  }
  return lines;
}

// nlohmann's message without its "[json.exception.parse_error.101] parse error at line 1, "
// prefix (a line is one line), escaped: it quotes what it last read.
std::string json_problem(const json::exception& error) {
  std::string message = error.what();
  const std::size_t id_end = message.find("] ");
  if (message.rfind("[json.exception.", 0) == 0 && id_end != std::string::npos) {
    message.erase(0, id_end + 2);
  }
  const std::string position = "parse error at line 1, ";
  if (message.rfind(position, 0) == 0) message.erase(0, position.size());
  return "not JSON: " + printable(message, 200);
}

const json& field(const json& object, const char* name) {
  const auto found = object.find(name);
  if (found == object.end()) throw LineError(fmt::format("no '{}' field", name));
  return *found;
}

std::string string_field(const json& object, const char* name) {
  const json& value = field(object, name);
  if (!value.is_string()) {
    throw LineError(fmt::format("'{}' is {}, not a string", name, printable(value.dump())));
  }
  return value.get<std::string>();
}

// A JSON array of times: non-negative, finite, at most kMaxMeasuredValue (what a report's time
// columns accept, so that sums and ratios of them stay finite).
std::vector<double> times_field(const json& value, const std::string& name) {
  if (!value.is_array()) {
    throw LineError(
        fmt::format("'{}' is {}, not an array of times", name, printable(value.dump())));
  }
  std::vector<double> times;
  times.reserve(value.size());
  for (std::size_t i = 0; i < value.size(); ++i) {
    const json& element = value[i];
    const double us = element.is_number() ? element.get<double>() : -1;
    if (!element.is_number() || !std::isfinite(us) || us < 0 || us > kMaxMeasuredValue) {
      throw LineError(fmt::format("{}[{}] is {}, not a time (a number from 0 to {:.0e} us)", name,
                                  i, printable(element.dump()), kMaxMeasuredValue));
    }
    times.push_back(us);
  }
  return times;
}

SampleRun parse_run(const json& object) {
  const json& format = field(object, "format");
  if (format != kSamplesFormat) {
    throw LineError(
        fmt::format("format {} is not \"{}\"", printable(format.dump()), kSamplesFormat));
  }
  const json& version = field(object, "version");
  if (version != kSamplesFormatVersion) {
    throw LineError(fmt::format("unknown sample file version {} (this tool reads version {})",
                                printable(version.dump()), kSamplesFormatVersion));
  }
  SampleRun run;
  run.started = string_field(object, "started");
  run.metadata = field(object, "metadata");
  if (!run.metadata.is_object()) throw LineError("'metadata' is not an object");
  run.settings = object.value("settings", json::object());
  run.sweep = object.value("sweep", json::object());
  return run;
}

// `per_rank` (named `name`) must hold row.ranks arrays, each as long as samples_us; a case that
// was not measured (skipped, failed) may have none at all.
void check_per_rank(const SampleCase& c, const char* name,
                    const std::vector<std::vector<double>>& per_rank) {
  if (c.samples_us.empty() && per_rank.empty()) return;
  if (per_rank.size() != static_cast<std::size_t>(c.row.ranks)) {
    throw LineError(
        fmt::format("{} holds {} ranks but row.ranks is {}", name, per_rank.size(), c.row.ranks));
  }
  for (std::size_t rank = 0; rank < per_rank.size(); ++rank) {
    if (per_rank[rank].size() != c.samples_us.size()) {
      throw LineError(fmt::format("{}[{}] holds {} samples but samples_us holds {}", name, rank,
                                  per_rank[rank].size(), c.samples_us.size()));
    }
  }
}

// The array of per-rank time arrays `name`.
std::vector<std::vector<double>> per_rank_field(const json& object, const char* name) {
  const json& ranks = field(object, name);
  if (!ranks.is_array()) {
    throw LineError(fmt::format("'{}' is {}, not an array", name, printable(ranks.dump())));
  }
  std::vector<std::vector<double>> per_rank;
  for (std::size_t rank = 0; rank < ranks.size(); ++rank) {
    per_rank.push_back(times_field(ranks[rank], fmt::format("{}[{}]", name, rank)));
  }
  return per_rank;
}

// `rank_hosts`: row.ranks host numbers (non-negative integers), or an empty array (one host).
std::vector<int> hosts_field(const json& object, const SampleCase& c) {
  const json& hosts = field(object, "rank_hosts");
  if (!hosts.is_array()) {
    throw LineError(fmt::format("'rank_hosts' is {}, not an array", printable(hosts.dump())));
  }
  std::vector<int> per_rank;
  for (std::size_t rank = 0; rank < hosts.size(); ++rank) {
    const json& host = hosts[rank];
    if (!host.is_number_integer() || host.get<std::int64_t>() < 0 ||
        host.get<std::int64_t>() > std::numeric_limits<int>::max()) {
      throw LineError(fmt::format("rank_hosts[{}] is {}, not a host number (an integer from 0)",
                                  rank, printable(host.dump())));
    }
    per_rank.push_back(host.get<int>());
  }
  if (!per_rank.empty() && per_rank.size() != static_cast<std::size_t>(c.row.ranks)) {
    throw LineError(
        fmt::format("rank_hosts holds {} ranks but row.ranks is {}", per_rank.size(), c.row.ranks));
  }
  return per_rank;
}

SampleCase parse_case(const json& object, unsigned line) {
  SampleCase c;
  c.line = line;
  c.name = string_field(object, "name");
  try {
    c.row = row_from_json(field(object, "row"));
  } catch (const ColumnParseError& error) {
    throw LineError(fmt::format("row: {}", error.what()));
  }
  const json& ops = field(object, "ops_per_sample");
  if (!ops.is_number_integer() || ops.get<std::int64_t>() < 1) {
    throw LineError(
        fmt::format("ops_per_sample is {}, not a positive integer", printable(ops.dump())));
  }
  c.ops_per_sample = ops.get<std::int64_t>();
  c.samples_us = times_field(field(object, "samples_us"), "samples_us");
  if (c.samples_us.size() != static_cast<std::size_t>(c.row.time.samples)) {
    throw LineError(fmt::format("samples_us holds {} samples but row.samples is {}",
                                c.samples_us.size(), c.row.time.samples));
  }
  c.rank_samples_us = per_rank_field(object, "rank_samples_us");
  check_per_rank(c, "rank_samples_us", c.rank_samples_us);
  if (object.contains("rank_lateness_us")) {  // optional: older files lack it
    c.rank_lateness_us = per_rank_field(object, "rank_lateness_us");
    check_per_rank(c, "rank_lateness_us", c.rank_lateness_us);
  }
  if (object.contains("rank_hosts")) c.rank_hosts = hosts_field(object, c);  // optional, too
  return c;
}

// The line's JSON object and its type, "run" or "case".
std::pair<json, std::string> parse_line(std::string_view text) {
  json object;
  try {
    object = json::parse(text);
  } catch (const json::exception& error) {  // a syntax error, or a number too large for a double
    throw LineError(json_problem(error));
  }
  if (!object.is_object()) throw LineError("not a JSON object");
  std::string type = string_field(object, "type");
  if (type != "run" && type != "case") {
    throw LineError(fmt::format("unknown line type '{}' (expected run or case)", printable(type)));
  }
  return {std::move(object), std::move(type)};
}

// A last line without its newline that is not JSON: how a run killed while writing it leaves the
// file (each line is written whole, newline included, and flushed at once).
bool cut_off(const TextLine& line) {
  return line.ends_file_unterminated && !json::accept(line.text);
}

// What the lines read so far established.
struct ReadState {
  SampleFile file;
  unsigned run_line = 0;  // 0 until the run line is read
  std::map<RowKey, unsigned> line_of_key;
};

// Adds one complete line to `state`; throws LineError.
void read_line(ReadState& state, const TextLine& line) {
  auto [object, type] = parse_line(line.text);
  if (type == "run") {
    if (state.run_line > 0) {
      throw LineError(fmt::format("a second run line (the first is line {})", state.run_line));
    }
    state.file.run = parse_run(object);
    state.run_line = line.number;
    return;
  }
  if (state.run_line == 0)
    throw LineError("a case line before the run line (the file must start with it)");
  SampleCase c = parse_case(object, line.number);
  const auto [previous, inserted] = state.line_of_key.emplace(row_key(c.row), line.number);
  if (!inserted) {
    throw LineError(fmt::format("duplicate case: same independent variables as line {} ({})",
                                previous->second, describe_key(previous->first)));
  }
  state.file.cases.push_back(std::move(c));
}

}  // namespace

SampleFile parse_sample_file(const std::string& name, const std::string& text) {
  const std::vector<TextLine> lines = nonblank_lines(text);
  if (lines.empty()) throw ReportError(name, 1, "empty file (no run line)");
  if (!looks_like_sample_file(text)) {
    throw ReportError(name, lines.front().number,
                      "not a sample file: the first line is not a JSON object (collbench --json "
                      "writes sample files)");
  }
  ReadState state;
  state.file.path = name;
  for (const TextLine& line : lines) {
    if (state.run_line > 0 && cut_off(line)) {
      state.file.warning =
          ReportError(name, line.number,
                      fmt::format("the last line is cut off (a run interrupted while "
                                  "writing it?) and was left out; {} case(s) read",
                                  state.file.cases.size()))
              .what();
      break;
    }
    try {
      read_line(state, line);
    } catch (const LineError& error) {
      throw ReportError(name, line.number, error.what());
    }
  }
  if (state.file.cases.empty()) {
    throw ReportError(name, lines.back().number + (state.file.warning.empty() ? 1 : 0),
                      state.file.warning.empty()
                          ? "no case lines after the run line"
                          : "no complete case line after the run line (this one is cut off)");
  }
  return state.file;
}

SampleFile read_sample_file(const std::string& path) {
  return parse_sample_file(path, read_report_text(path));
}

bool looks_like_sample_file(const std::string& text) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string::npos && text[first] == '{';
}

Report read_report_rows(const std::string& path, std::vector<std::string>& warnings) {
  const std::string text = read_report_text(path);
  if (!looks_like_sample_file(text)) return parse_report(path, text);
  const SampleFile samples = parse_sample_file(path, text);
  if (!samples.warning.empty()) warnings.push_back(samples.warning);
  Report report{path, {}};
  for (const SampleCase& c : samples.cases) report.rows.push_back({c.row, c.line});
  return report;
}

}  // namespace collbench::report
