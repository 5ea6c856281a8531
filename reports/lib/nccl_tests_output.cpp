// Parsing of nccl-tests' standard output line by line: a run lasts from its version line to its
// "# Collective test concluded" line, and every line inside it must be one nccl-tests prints.
#include "reports/nccl_tests_output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "reports/csv_reader.hpp"
#include "reports/printable.hpp"
#include "reports/schema.hpp"

namespace collbench::report {
namespace {

// How much of an offending line a message quotes: a whole data line fits.
constexpr std::size_t kQuotedLineChars = 160;

// What is wrong with one line; the reader adds the file, the line number and the text.
class LineError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

bool is_blank(char c) {
  return c == ' ' || c == '\t';
}

std::vector<std::string_view> words_of(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_blank(line[i])) ++i;
    const std::size_t begin = i;
    while (i < line.size() && !is_blank(line[i])) ++i;
    if (i > begin) words.push_back(line.substr(begin, i - begin));
  }
  return words;
}

// The words of `line` against those of `pattern`: a pattern word "{}" takes any word and one
// ending in "{}" ("nccl-headers={}") any word with that start; both capture what "{}" stands for.
// Other words must be equal. With `rest`, the line may go on past the pattern; `rest` gets the
// text from its next word on. Printf's padding varies with the values, hence words, not columns.
struct WordMatch {
  std::vector<std::string> captures;
  std::string rest;
};

std::optional<WordMatch> match_words(std::string_view line, std::string_view pattern,
                                     bool rest = false) {
  const std::vector<std::string_view> words = words_of(line);
  const std::vector<std::string_view> expected = words_of(pattern);
  if (words.size() < expected.size() || (!rest && words.size() > expected.size())) {
    return std::nullopt;
  }
  WordMatch match;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const std::string_view want = expected[i];
    const std::size_t hole = want.find("{}");
    if (hole == std::string_view::npos) {
      if (words[i] != want) return std::nullopt;
      continue;
    }
    const std::string_view prefix = want.substr(0, hole);
    if (words[i].substr(0, prefix.size()) != prefix || words[i].size() == prefix.size()) {
      return std::nullopt;
    }
    match.captures.emplace_back(words[i].substr(prefix.size()));
  }
  if (words.size() > expected.size()) {
    const std::string_view next = words[expected.size()];
    match.rest = std::string(line.substr(static_cast<std::size_t>(next.data() - line.data())));
    while (!match.rest.empty() && is_blank(match.rest.back())) match.rest.pop_back();
  }
  return match;
}

template <typename Integer>
Integer integer_field(std::string_view text, std::string_view what, Integer min, Integer max) {
  Integer value{};
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) {
    throw LineError(fmt::format("{} '{}' is not an integer", what, printable(text)));
  }
  if (value < min || value > max) {
    throw LineError(
        fmt::format("{} '{}' is out of range (expected {} to {})", what, value, min, max));
  }
  return value;
}

// A number as getFloatStr (util.cu) prints it, "%.2f" down to "%.0e" as the width demands, or
// "%g" for #wrong: digits, a point, an exponent. No sign, inf or nan.
double number_field(std::string_view text, std::string_view what) {
  const bool well_formed = !text.empty() && std::isdigit(static_cast<unsigned char>(text[0])) &&
                           text.find_first_not_of("0123456789.eE+-") == std::string_view::npos;
  const std::string copy(text);
  char* end = nullptr;
  // strtod reads the decimal point of the C locale, which the tools never change.
  const double value = well_formed ? std::strtod(copy.c_str(), &end) : -1;
  if (!well_formed || end != copy.c_str() + copy.size() || !std::isfinite(value)) {
    throw LineError(fmt::format("{} '{}' is not a number", what, printable(text)));
  }
  if (value > kMaxMeasuredValue) {
    throw LineError(fmt::format("{} '{}' is larger than {:.0e}, the limit of any measured value",
                                what, printable(text), kMaxMeasuredValue));
  }
  return value;
}

std::optional<std::uint64_t> wrong_field(std::string_view text) {
  if (text == "N/A") return std::nullopt;  // -c 0: not checked
  const double value = number_field(text, "#wrong");
  if (value != std::floor(value)) {
    throw LineError(fmt::format("#wrong '{}' is not a whole number", printable(text)));
  }
  return static_cast<std::uint64_t>(value);
}

// The column header's layout: per placement time (or cputime), algbw, busbw, #wrong and, with -I
// 1, i_min i_max i_p99 i_cv%; with -S 1 a timestamp ("%Y-%m-%d %H:%M:%S", two words) ends the line.
struct ColumnLayout {
  bool cpu_time = false;
  bool per_iteration = false;
  bool timestamp = false;
  std::size_t placement_words() const { return per_iteration ? 8 : 4; }
  std::size_t words() const { return 5 + 2 * placement_words() + (timestamp ? 2 : 0); }
};

ColumnLayout column_layout(const std::vector<std::string_view>& words) {
  static constexpr std::string_view kPreamble[] = {"#", "size", "count", "type", "redop", "root"};
  static constexpr std::string_view kPlacement[] = {"algbw", "busbw", "#wrong"};
  static constexpr std::string_view kIterations[] = {"i_min", "i_max", "i_p99", "i_cv%"};
  auto fail = [] {
    return LineError(
        "a column header that nccl-tests 2.19 does not print (expected size count type redop "
        "root, then time algbw busbw #wrong [i_min i_max i_p99 i_cv%] twice [timestamp])");
  };
  ColumnLayout layout;
  std::size_t at = 0;
  auto take = [&](std::string_view word) {
    if (at >= words.size() || words[at] != word) throw fail();
    ++at;
  };
  for (std::string_view word : kPreamble) take(word);
  for (int placement = 0; placement < 2; ++placement) {
    if (at >= words.size() || (words[at] != "time" && words[at] != "cputime")) throw fail();
    const bool cpu_time = words[at++] == "cputime";
    if (placement == 1 && cpu_time != layout.cpu_time) throw fail();
    layout.cpu_time = cpu_time;
    for (std::string_view word : kPlacement) take(word);
    const bool iterations = at < words.size() && words[at] == kIterations[0];
    if (placement == 1 && iterations != layout.per_iteration) throw fail();
    layout.per_iteration = iterations;
    if (iterations) {
      for (std::string_view word : kIterations) take(word);
    }
  }
  if (at < words.size() && words[at] == "timestamp") {
    layout.timestamp = true;
    ++at;
  }
  if (at != words.size()) throw fail();
  return layout;
}

NcclTestsPlacement placement_fields(const std::vector<std::string_view>& words, std::size_t at,
                                    const ColumnLayout& layout) {
  NcclTestsPlacement placement;
  placement.time_us = number_field(words[at], layout.cpu_time ? "cputime" : "time");
  placement.algbw_gbps = number_field(words[at + 1], "algbw");
  placement.busbw_gbps = number_field(words[at + 2], "busbw");
  placement.wrong_elements = wrong_field(words[at + 3]);
  if (layout.per_iteration) {
    placement.iterations = NcclTestsIterationStats{
        number_field(words[at + 4], "i_min"), number_field(words[at + 5], "i_max"),
        number_field(words[at + 6], "i_p99"), number_field(words[at + 7], "i_cv%")};
  }
  return placement;
}

constexpr std::uint64_t kMaxBytes = std::uint64_t{1} << 50;
constexpr int kMaxCount = 1'000'000'000;

NcclTestsDataLine data_line(const std::vector<std::string_view>& words, const ColumnLayout& layout,
                            unsigned number) {
  if (words.size() != layout.words()) {
    throw LineError(fmt::format("a data line of {} fields where the column header has {}{}",
                                words.size(), layout.words(),
                                words.size() < layout.words() ? " (cut off?)" : ""));
  }
  NcclTestsDataLine line;
  line.line = number;
  line.bytes = integer_field<std::uint64_t>(words[0], "size", 0, kMaxBytes);
  line.count = integer_field<std::uint64_t>(words[1], "count", 0, kMaxBytes);
  line.type = std::string(words[2]);
  line.redop = std::string(words[3]);
  line.root = integer_field<int>(words[4], "root", -1, kMaxCount);
  line.out_of_place = placement_fields(words, 5, layout);
  line.in_place = placement_fields(words, 5 + layout.placement_words(), layout);
  return line;
}

// NCCL's own log lines (NCCL_DEBUG=INFO/WARN go to standard output): "HOST:PID:TID [DEV] NCCL ...".
bool is_nccl_log_line(const std::vector<std::string_view>& words) {
  return words.size() >= 3 && words[2] == "NCCL" && words[1].size() >= 3 &&
         words[1].front() == '[' && words[1].back() == ']' &&
         std::count(words[0].begin(), words[0].end(), ':') >= 2;
}

bool is_integer_word(std::string_view word) {
  return !word.empty() && word.find_first_not_of("0123456789") == std::string_view::npos;
}

// A run from its version line on, and what of it has been read.
class RunReader {
 public:
  RunReader(std::string_view line, unsigned number) {
    const auto match = match_words(line, "# nccl-tests version {} nccl-headers={} nccl-library={}");
    if (!match) {
      throw LineError(
          "a version line that nccl-tests 2.19 does not print (expected '# nccl-tests "
          "version V nccl-headers=N nccl-library=N')");
    }
    run_.line = number;
    run_.version = match->captures[0];
    run_.nccl_headers = integer_field<int>(match->captures[1], "nccl-headers", 0, kMaxCount);
    run_.nccl_library = integer_field<int>(match->captures[2], "nccl-library", 0, kMaxCount);
  }

  // "the all_reduce_perf run of line 3"
  std::string name() const {
    return fmt::format("the {} run of line {}",
                       run_.program.empty() ? "nccl-tests" : printable(run_.program), run_.line);
  }

  // Reads one nonblank line; returns true when it concludes the run.
  bool read(std::string_view line, unsigned number) {
    const std::vector<std::string_view> words = words_of(line);
    if (words.front().front() == '#') return read_comment(line, words, number);
    if (is_nccl_log_line(words)) return false;
    // TESTCHECK's "HOST: Test NCCL failure common.cu:1234 '...'": the run stopped there.
    if (line.find(": Test ") != std::string_view::npos &&
        line.find(" failure ") != std::string_view::npos) {
      throw LineError(fmt::format("{} failed", name()));
    }
    if (!is_integer_word(words.front())) throw LineError("not a line nccl-tests prints");
    read_data(words, number);
    return false;
  }

  // The run as read, once complete; throws LineError naming what it lacks.
  NcclTestsRun finish() {
    if (!has_trailer_) {
      throw LineError(
          fmt::format("{} ends before its '# Avg bus bandwidth' line (cut off?)", name()));
    }
    if (run_.data.empty()) throw LineError(fmt::format("{} has no data lines", name()));
    return std::move(run_);
  }

 private:
  bool read_comment(std::string_view line, const std::vector<std::string_view>& words,
                    unsigned number) {
    const std::string_view second = words.size() > 1 ? words[1] : std::string_view();
    if (second == "nThread") {
      read_settings(line);
    } else if (second == "Rank") {
      read_rank(line, number);
    } else if (second == "size") {
      read_column_header(words);
    } else if (auto start = match_words(line, "# Collective test starting: {}")) {
      run_.program = start->captures[0];
    } else if (auto trailer = match_words(line, "# Avg bus bandwidth : {}", true)) {
      require_data("the '# Avg bus bandwidth' line");
      run_.avg_busbw_gbps = number_field(trailer->captures[0], "Avg bus bandwidth");
      has_trailer_ = true;
    } else if (match_words(line, "# Collective test concluded: {}")) {
      return true;
    }
    // Any other '#' line: "# Using devices", the out-of-place/in-place and unit lines,
    // "# Out of bounds values", "# GPU memory usage", "# error: ...", "#".
    return false;
  }

  void read_settings(std::string_view line) {
    const auto match = match_words(
        line,
        "# nThread {} nGpus {} minBytes {} maxBytes {} step: {} warmup iters: {} iters: {} agg "
        "iters: {} validation: {} graph: {} unalign: {}");
    if (!match) throw LineError("a settings line that nccl-tests 2.19 does not print");
    const std::vector<std::string>& c = match->captures;
    run_.threads = integer_field<int>(c[0], "nThread", 1, kMaxCount);
    run_.gpus_per_thread = integer_field<int>(c[1], "nGpus", 1, kMaxCount);
    run_.warmup_iters = integer_field<int>(c[5], "warmup iters", 0, kMaxCount);
    run_.iters = integer_field<int>(c[6], "iters", 0, kMaxCount);
    run_.agg_iters = integer_field<int>(c[7], "agg iters", 1, kMaxCount);
    run_.validation = integer_field<int>(c[8], "validation", 0, kMaxCount);
    run_.graph = integer_field<int>(c[9], "graph", 0, kMaxCount);
    run_.unalign = integer_field<int>(c[10], "unalign", 0, kMaxCount);
    has_settings_ = true;
  }

  void read_rank(std::string_view line, unsigned number) {
    const auto match =
        match_words(line, "# Rank {} Group {} Pid {} on {} device {} {}", /*rest=*/true);
    if (!match) throw LineError("a Rank line that nccl-tests 2.19 does not print");
    if (layout_) throw LineError("a Rank line after the column header");
    const std::vector<std::string>& c = match->captures;
    NcclTestsRankLine rank;
    rank.line = number;
    rank.rank = integer_field<int>(c[0], "Rank", 0, kMaxCount);
    rank.group = integer_field<int>(c[1], "Group", 0, kMaxCount);
    rank.pid = integer_field<long>(c[2], "Pid", 0, kMaxCount);
    rank.host = c[3];
    rank.device = integer_field<int>(c[4], "device", 0, kMaxCount);
    if (c[5].size() < 3 || c[5].front() != '[' || c[5].back() != ']') {
      throw LineError(fmt::format("PCI id '{}' is not in brackets", printable(c[5])));
    }
    rank.bus_id = c[5].substr(1, c[5].size() - 2);
    rank.gpu_name = match->rest;
    for (const NcclTestsRankLine& other : run_.ranks) {
      if (other.rank == rank.rank) {
        throw LineError(
            fmt::format("rank {} appears twice (first on line {})", rank.rank, other.line));
      }
    }
    run_.ranks.push_back(std::move(rank));
  }

  void read_column_header(const std::vector<std::string_view>& words) {
    if (layout_) throw LineError("a second column header in one run");
    layout_ = column_layout(words);
    run_.cpu_time = layout_->cpu_time;
  }

  // What must be read before `what`: the settings, the program, the Rank lines, the columns.
  void require_data(const std::string& what) const {
    if (run_.program.empty()) {
      throw LineError(fmt::format("{} before '# Collective test starting'", what));
    }
    if (!has_settings_) throw LineError(fmt::format("{} before the '# nThread' line", what));
    if (run_.ranks.empty()) throw LineError(fmt::format("{} before any Rank line", what));
    if (!layout_) throw LineError(fmt::format("{} before the column header", what));
  }

  void read_data(const std::vector<std::string_view>& words, unsigned number) {
    if (has_trailer_) throw LineError("a data line after the '# Avg bus bandwidth' line");
    if (run_.data.empty()) {
      require_data("a data line");
      check_ranks();
    }
    run_.data.push_back(data_line(words, *layout_, number));
  }

  // Ranks 0..n-1, each once, as many as processes x threads x GPUs per thread.
  void check_ranks() {
    std::sort(
        run_.ranks.begin(), run_.ranks.end(),
        [](const NcclTestsRankLine& a, const NcclTestsRankLine& b) { return a.rank < b.rank; });
    for (std::size_t i = 0; i < run_.ranks.size(); ++i) {
      if (run_.ranks[i].rank != static_cast<int>(i)) {
        throw LineError(fmt::format("the Rank lines of {} lack rank {} (they name {} ranks)",
                                    name(), i, run_.ranks.size()));
      }
    }
    const std::size_t per_process =
        static_cast<std::size_t>(run_.threads) * static_cast<std::size_t>(run_.gpus_per_thread);
    if (run_.ranks.size() % per_process != 0) {
      throw LineError(fmt::format(
          "{} has {} Rank lines, not a multiple of nThread {} x nGpus {} (a process's lines cut "
          "off?)",
          name(), run_.ranks.size(), run_.threads, run_.gpus_per_thread));
    }
  }

  NcclTestsRun run_;
  bool has_settings_ = false;
  std::optional<ColumnLayout> layout_;
  bool has_trailer_ = false;
};

// One line of the file: its number (1-based) and text without the line break.
struct TextLine {
  unsigned number = 0;
  std::string_view text;
};

std::vector<TextLine> lines_of(std::string_view text) {
  std::vector<TextLine> lines;
  std::size_t begin = 0;
  unsigned number = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(begin, end - begin);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back({++number, line});
    begin = end + 1;
  }
  return lines;
}

bool is_blank_line(std::string_view line) {
  return std::all_of(line.begin(), line.end(), is_blank);
}

ReportError error_at(const std::string& name, const TextLine& line, const std::string& message) {
  return ReportError(name, line.number,
                     fmt::format("{}: '{}'", message, printable(line.text, kQuotedLineChars)));
}

}  // namespace

NcclTestsOutput parse_nccl_tests_output(const std::string& name, const std::string& text) {
  NcclTestsOutput output;
  output.path = name;
  std::optional<RunReader> run;
  const std::vector<TextLine> lines = lines_of(text);
  for (const TextLine& line : lines) {
    if (is_blank_line(line.text)) continue;
    try {
      if (line.text.rfind("# nccl-tests version", 0) == 0) {
        if (run) output.runs.push_back(run->finish());  // concluded or not, its data must be whole
        run.emplace(line.text, line.number);
      } else if (run && run->read(line.text, line.number)) {
        output.runs.push_back(run->finish());
        run.reset();
      }
    } catch (const LineError& error) {
      throw error_at(name, line, error.what());
    }
  }
  if (run) {
    try {
      output.runs.push_back(run->finish());
    } catch (const LineError& error) {
      throw error_at(name, lines.back(), fmt::format("the output ends here: {}", error.what()));
    }
  }
  if (output.runs.empty()) {
    throw ReportError(name, lines.empty() ? 1 : lines.back().number,
                      "no '# nccl-tests version' line: not the output of an nccl-tests perf "
                      "binary (version 2.19 prints one at the start of each run)");
  }
  return output;
}

NcclTestsOutput read_nccl_tests_output(const std::string& path) {
  return parse_nccl_tests_output(path, read_report_text(path));
}

}  // namespace collbench::report
