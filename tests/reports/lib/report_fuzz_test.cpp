// A fixed-seed fuzz test of the report reader: thousands of mutated reports (of schema versions 1,
// 2 and 3), each either read (and
// then written and read back unchanged) or refused with one ReportError line naming file:line.
// Its own binary so that a sanitizer build can run it alone.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "reports/csv_reader.hpp"
#include "reports/csv_writer.hpp"
#include "reports/schema.hpp"
#include "support/csv_text.hpp"
#include "support/fixture_reports.hpp"

namespace collbench::report {
namespace {

constexpr int kCases = 4000;

// Values that sit on the edge of some column's domain, or far outside it.
const std::vector<std::string>& hostile_values() {
  static const std::vector<std::string> values = {"",
                                                  "0",
                                                  "-1",
                                                  "-0",
                                                  "1",
                                                  "4294967296",
                                                  "99999999999999999999",
                                                  "0x10",
                                                  "1e308",
                                                  "inf",
                                                  "nan",
                                                  "-5.0",
                                                  "1.",
                                                  ".5",
                                                  "1000000000000.0",
                                                  "1000000000000.001",
                                                  "all_reduce",
                                                  "dp_step",
                                                  "p2p_peak",
                                                  "float",
                                                  "none",
                                                  "-",
                                                  "mpi",
                                                  "2026-11-22T14:27:21Z",
                                                  "2026-13-01T00:00:00Z",
                                                  "\"quoted, comma\"",
                                                  "\"unclosed",
                                                  std::string(1, '\0'),
                                                  "\x1b[31m",
                                                  "\r",
                                                  "\xff\xfe",
                                                  std::string(300, 'v'),
                                                  "ok",
                                                  "skipped",
                                                  "sum",
                                                  "\" padded \"",
                                                  "two words",
                                                  "a;b=c"};
  return values;
}

class Mutator {
 public:
  explicit Mutator(std::uint32_t seed) : random_(seed) {}

  std::string mutate(std::string text) {
    const int mutations = 1 + pick(3);
    for (int m = 0; m < mutations; ++m) text = mutate_once(std::move(text));
    return text;
  }

 private:
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(random_); }
  std::size_t at(const std::string& text) {
    return std::uniform_int_distribution<std::size_t>(0,
                                                      text.empty() ? 0 : text.size() - 1)(random_);
  }

  // One field of one data line replaced by a hostile value.
  std::string replace_field(const std::string& text) {
    std::vector<std::string> lines = fixtures::split_lines(text);
    if (lines.size() < 2) return text;
    std::string& line =
        lines[1 + static_cast<std::size_t>(pick(static_cast<int>(lines.size()) - 1))];
    std::vector<std::size_t> commas = {0};
    for (std::size_t i = 0; i < line.size(); ++i) {
      if (line[i] == ',') commas.push_back(i + 1);
    }
    const std::size_t begin =
        commas[static_cast<std::size_t>(pick(static_cast<int>(commas.size())))];
    const std::size_t end = std::min(line.find(',', begin), line.size());
    const auto& values = hostile_values();
    line = line.substr(0, begin) +
           values[static_cast<std::size_t>(pick(static_cast<int>(values.size())))] +
           line.substr(end);
    return fixtures::join_lines(lines);
  }

  std::string mutate_once(std::string text) {
    switch (pick(8)) {
      case 0:
        if (!text.empty()) text.erase(at(text), 1 + static_cast<std::size_t>(pick(8)));
        break;
      case 1:
        text.insert(at(text), 1, static_cast<char>(pick(256)));
        break;
      case 2:
        if (!text.empty()) text[at(text)] = ",\"\n\r\t"[pick(5)];
        break;
      case 3:
        text += text.substr(text.find('\n') + 1, 200);
        break;  // a duplicated row, perhaps
      case 4:
        text.resize(at(text));
        break;
      case 5:
      case 6:
        text = replace_field(text);
        break;
      default: {
        const std::size_t from = at(text);
        text.insert(at(text), text.substr(from, static_cast<std::size_t>(pick(400))));
        break;
      }
    }
    return text;
  }

  std::mt19937 random_;
};

std::size_t line_count(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
}

void expect_clean_error(const ReportError& error, const std::string& text) {
  const std::string message = error.what();
  EXPECT_EQ(message.rfind("fuzz.csv:" + std::to_string(error.line()) + ": ", 0), 0u) << message;
  EXPECT_GE(error.line(), 1u) << message;
  EXPECT_LE(error.line(), line_count(text) + 1) << message;
  EXPECT_LT(message.size(), 1000u) << message;
  for (const char c : message) {
    ASSERT_FALSE(static_cast<unsigned char>(c) < 0x20 || c == 0x7f) << message;
  }
}

void expect_round_trip(const Report& report) {
  std::string written = header_line() + "\n";
  for (const ReportLine& line : report.rows) written += format_row(line.row) + "\n";
  const Report again = parse_report("rewritten.csv", written);
  ASSERT_EQ(again.rows.size(), report.rows.size());
  for (std::size_t i = 0; i < report.rows.size(); ++i) {
    EXPECT_EQ(format_row(again.rows[i].row), format_row(report.rows[i].row));
  }
}

TEST(ReportFuzz, MutatedReportsAreReadOrRefusedWithFileAndLine) {
  // Every schema version the reader reads, in turn.
  const std::string valid[] = {fixtures::to_csv(fixtures::baseline_rows()),
                               fixtures::to_csv(fixtures::baseline_rows(), 1),
                               fixtures::to_csv(fixtures::baseline_rows(), 2)};
  for (const std::string& text : valid) ASSERT_NO_THROW(parse_report("valid.csv", text));
  Mutator mutator(20261125);
  int read = 0, refused = 0;
  for (int i = 0; i < kCases; ++i) {
    const std::string text = mutator.mutate(valid[i % 3]);
    try {
      const Report report = parse_report("fuzz.csv", text);
      ++read;
      expect_round_trip(report);
    } catch (const ReportError& error) {
      ++refused;
      expect_clean_error(error, text);
    }
    if (HasFatalFailure()) return;
  }
  // Both outcomes are reached: the corpus is neither all garbage nor all harmless.
  EXPECT_GT(read, kCases / 40);
  EXPECT_GT(refused, kCases / 2);
  std::printf("%d cases: %d read, %d refused\n", kCases, read, refused);
}

}  // namespace
}  // namespace collbench::report
