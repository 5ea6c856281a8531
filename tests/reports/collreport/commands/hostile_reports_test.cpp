// Hostile reports through the collreport command line: each is refused with exit 2 and one line
// that names the file, the line and the offending value, escaped and shortened.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <zlib.h>

#include <filesystem>
#include <functional>
#include <sstream>

#include "collreport/commands/cli_run.hpp"
#include "commands/cli.hpp"
#include "reports/schema.hpp"
#include "reports/text_file.hpp"
#include "support/csv_text.hpp"
#include "support/fixture_reports.hpp"

namespace collbench::collreport {
namespace {

using fixtures::join_lines;
using fixtures::split_lines;
using fixtures::with_field;

CliResult run(std::vector<std::string> args) {
  return run_cli(std::move(args));
}

std::vector<std::string> valid_lines() {
  return split_lines(fixtures::to_csv(fixtures::baseline_rows()));
}

// Line 3 of the valid report (its second row) with `column` set to `value`.
std::string with_row_field(const std::string& column, const std::string& value) {
  std::vector<std::string> lines = valid_lines();
  lines[2] = with_field(lines[2], column, value);
  return join_lines(lines);
}

struct HostileCase {
  const char* name;
  std::function<std::string()> text;
  std::string message;  // what follows "collreport: error: FILE:"
};

const std::string kThreeDots = "...";

std::vector<HostileCase> hostile_cases() {
  const std::string sixty_x(60, 'x');
  return {
      {"zero ranks", [] { return with_row_field("ranks", "0"); },
       "3: column 'ranks': '0' is out of range (expected 1 to 1048576)"},
      {"negative ranks", [] { return with_row_field("ranks", "-4"); },
       "3: column 'ranks': '-4' is out of range (expected 1 to 1048576)"},
      {"negative nodes", [] { return with_row_field("nodes", "-1"); },
       "3: column 'nodes': '-1' is out of range (expected 1 to 1048576)"},
      {"negative warmup", [] { return with_row_field("warmup", "-5"); },
       "3: column 'warmup': '-5' is out of range (expected 0 to 1000000000)"},
      {"negative iters", [] { return with_row_field("iters", "-20"); },
       "3: column 'iters': '-20' is out of range (expected 0 to 1000000000)"},
      {"zero agg_iters", [] { return with_row_field("agg_iters", "0"); },
       "3: column 'agg_iters': '0' is out of range (expected 1 to 1000000000)"},
      {"negative graph", [] { return with_row_field("graph", "-10"); },
       "3: column 'graph': '-10' is out of range (expected 0 to 1000000000)"},
      {"root below -1", [] { return with_row_field("root", "-2"); },
       "3: column 'root': '-2' is out of range (expected -1 to 1048575)"},
      {"bytes beyond 1 PiB", [] { return with_row_field("bytes", "1125899906842625"); },
       "3: column 'bytes': '1125899906842625' is out of range (expected 0 to 1125899906842624)"},
      {"negative time", [] { return with_row_field("time_us_p50", "-5.000"); },
       "3: column 'time_us_p50': '-5.000' is not a plain non-negative decimal number (like "
       "12.345)"},
      {"negative bandwidth", [] { return with_row_field("busbw_gbps", "-1.5"); },
       "3: column 'busbw_gbps': '-1.5' is not a plain non-negative decimal number (like 12.345)"},
      {"hex number", [] { return with_row_field("algbw_gbps", "0x10"); },
       "3: column 'algbw_gbps': '0x10' is not a plain non-negative decimal number (like 12.345)"},
      {"exponent", [] { return with_row_field("time_us_mean", "1e308"); },
       "3: column 'time_us_mean': '1e308' is not a plain non-negative decimal number (like "
       "12.345)"},
      {"infinity", [] { return with_row_field("time_us_max", "inf"); },
       "3: column 'time_us_max': 'inf' is not a plain non-negative decimal number (like 12.345)"},
      {"nan", [] { return with_row_field("peak_fraction", "nan"); },
       "3: column 'peak_fraction': 'nan' is not a plain non-negative decimal number (like "
       "12.345)"},
      {"absurdly large time", [] { return with_row_field("time_us_p99", "1000000000000.5"); },
       "3: column 'time_us_p99': '1000000000000.5' is larger than 1e+12, the limit of any "
       "measured value"},
      {"empty op", [] { return with_row_field("op", ""); },
       "3: column 'op': '' is not one of all_reduce, all_gather, reduce_scatter, broadcast, "
       "reduce, alltoall, gather, scatter, sendrecv, alltoallv, dp_step, p2p_peak"},
      {"free text op", [] { return with_row_field("op", "allreduce please"); },
       "3: column 'op': 'allreduce please' is not one of all_reduce,"},
      {"empty algo", [] { return with_row_field("algo", ""); },
       "3: column 'algo': '' is not an algorithm name (1 to 64 of a-z, 0-9, _, -)"},
      {"algo with capitals and spaces", [] { return with_row_field("algo", "My Ring"); },
       "3: column 'algo': 'My Ring' is not an algorithm name"},
      {"unknown dtype", [] { return with_row_field("dtype", "fp32"); },
       "3: column 'dtype': 'fp32' is not one of int8, uint8, int32, uint32, int64, uint64, half, "
       "float, double, bfloat16"},
      {"empty redop", [] { return with_row_field("redop", ""); },
       "3: column 'redop': '' is not one of sum, prod, max, min, avg, none"},
      {"unknown launch mode", [] { return with_row_field("launch_mode", "by hand"); },
       "3: column 'launch_mode': 'by hand' is not one of single_process, mpi, env"},
      {"empty timestamp", [] { return with_row_field("timestamp", ""); },
       "3: column 'timestamp': '' is not an ISO 8601 UTC time like 2026-11-22T14:27:21Z"},
      {"timestamp without zone", [] { return with_row_field("timestamp", "2026-11-22T14:27:21"); },
       "3: column 'timestamp': '2026-11-22T14:27:21' is not an ISO 8601 UTC time"},
      {"timestamp of a day that does not exist",
       [] { return with_row_field("timestamp", "2026-02-29T10:00:00Z"); },
       "3: column 'timestamp': '2026-02-29T10:00:00Z' is not an ISO 8601 UTC time"},
      {"NUL byte ending the line early",
       [] {
         std::vector<std::string> lines = valid_lines();
         lines[3] += std::string("\0,extra,fields", 14);
         return join_lines(lines);
       },
       "4: control character \\x00 at column"},
      {"terminal escape in a free-text field",
       [] { return with_row_field("reason", "\x1b]0;owned\x07\x1b[31mred"); },
       "3: control character \\x1b at column"},
      {"carriage return inside a line", [] { return with_row_field("host", "a\rb"); },
       "3: control character \\x0d at column"},
      {"binary bytes in a value are escaped",
       [] { return with_row_field("op", "all_reduce\xff\xfe"); },
       "3: column 'op': 'all_reduce\\xff\\xfe' is not one of"},
      {"a long value is shortened", [sixty_x] { return with_row_field("dtype", sixty_x + "yyy"); },
       "3: column 'dtype': '" + sixty_x + kThreeDots + "' is not one of"},
      {"a 10 MB header", [] { return std::string(10 << 20, 'h') + "\n" + valid_lines()[1] + "\n"; },
       "1: line longer than 65536 bytes"},
      {"a header of many unknown columns",
       [] {
         std::vector<std::string> lines = valid_lines();
         for (int i = 0; i < 20; ++i) lines[0] += ",bogus" + std::to_string(i);
         return join_lines(lines);
       },
       "1: header does not match schema version 3: extra columns 'bogus0', 'bogus1', 'bogus2', "
       "'bogus3', 'bogus4', 'bogus5', 'bogus6', 'bogus7' and 12 more"},
      {"zero ranks in a version 1 report",
       [] {
         // `ranks` comes before the first column version 2 added: with_field finds it alike.
         std::vector<std::string> lines =
             split_lines(fixtures::to_csv(fixtures::baseline_rows(), 1));
         lines[2] = with_field(lines[2], "ranks", "0");
         return join_lines(lines);
       },
       "3: column 'ranks': '0' is out of range (expected 1 to 1048576)"},
      {"an interval of a level of 100%", [] { return with_row_field("confidence_pct", "100"); },
       "3: column 'confidence_pct': '100' is not 0 (no interval) or a level between 0 and 100"},
      {"an unknown stop", [] { return with_row_field("stop", "bored"); },
       "3: column 'stop': 'bored' is not one of fixed, converged, time_limit"},
      {"an unknown status", [] { return with_row_field("status", "fine"); },
       "3: column 'status': 'fine' is not one of ok, skipped, oom, error, timeout"},
  };
}

TEST(HostileReports, EachIsOneLineNamingTheValueAndExitsTwo) {
  int index = 0;
  for (const HostileCase& hostile : hostile_cases()) {
    const std::string path =
        fixtures::write_temp_file("hostile" + std::to_string(index++) + ".csv", hostile.text());
    for (const char* command : {"summary", "merge"}) {
      const CliResult result = run({command, path});
      const std::string expected_start = "collreport: error: " + path + ":" + hostile.message;
      EXPECT_EQ(result.code, 2) << hostile.name;
      EXPECT_EQ(result.err.rfind(expected_start, 0), 0u)
          << hostile.name << "\n  got:  " << result.err << "\n  want: " << expected_start;
      ASSERT_FALSE(result.err.empty()) << hostile.name;
      EXPECT_EQ(result.err.find('\n'), result.err.size() - 1) << hostile.name;
      EXPECT_LT(result.err.size(), 600u) << hostile.name;
      for (const char c : result.err.substr(0, result.err.size() - 1)) {
        EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 || c == 0x7f) << hostile.name;
      }
      EXPECT_TRUE(result.out.empty()) << hostile.name;
    }
    const CliResult compared = run({"compare", path, path});
    EXPECT_EQ(compared.code, 2) << hostile.name;
  }
}

TEST(HostileReports, EveryCommittedReportIsAccepted) {
  // The domains were chosen to hold everything collbench has written; this keeps them so.
  std::vector<std::string> paths;
  for (const auto& machine : std::filesystem::directory_iterator(COLLBENCH_REPORTS_DIR)) {
    for (const std::filesystem::path& folder : {machine.path(), machine.path() / "baseline"}) {
      if (!std::filesystem::is_directory(folder)) continue;
      for (const auto& file : std::filesystem::directory_iterator(folder)) {
        if (file.path().extension() == ".csv") paths.push_back(file.path().string());
      }
    }
  }
  EXPECT_GE(paths.size(), 30u);  // the committed reports were found
  for (const std::string& path : paths) {
    const CliResult result = run({"summary", path});
    EXPECT_EQ(result.code, 0) << path << ": " << result.err;
  }
}

TEST(HostileInputs, DevicesDirectoriesAndFifosAreRefusedInOneLine) {
  const std::string fifo = ::testing::TempDir() + "collreport_hostile_fifo";
  std::remove(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::vector<std::pair<std::string, std::string>> inputs = {
      {"/dev/zero", "a character device, not a regular file"},
      {"/dev/null", "a character device, not a regular file"},
      {::testing::TempDir(), "a directory, not a regular file"},
      {fifo, "a FIFO, not a regular file"},
      {"/nonexistent/r.csv", "cannot open: No such file or directory"},
  };
  for (const auto& [path, problem] : inputs) {
    const CliResult result = run({"summary", path});
    EXPECT_EQ(result.code, 2) << path;
    EXPECT_EQ(result.err, "collreport: error: " + path + ": " + problem + "\n");
  }
  std::remove(fifo.c_str());
}

TEST(HostileInputs, AFileAboveTheCapIsRefusedUnread) {
  const std::string path = fixtures::write_temp_file("big.csv", std::string(4097, 'x'));
  EXPECT_EQ(report::read_text_file(path, 4097).size(), 4097u);
  try {
    report::read_text_file(path, 4096);
    ADD_FAILURE() << "a file above the cap was read";
  } catch (const report::TextFileError& error) {
    EXPECT_STREQ(error.what(), "too large: 4097 bytes (the limit is 4096 bytes)");
  }
}

// `text` gzipped (one member), as gzip writes it.
std::string gzipped(const std::string& text) {
  z_stream stream{};
  EXPECT_EQ(
      deflateInit2(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY),
      Z_OK);
  std::string out(deflateBound(&stream, text.size()), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  stream.avail_in = static_cast<uInt>(text.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&stream, Z_FINISH), Z_STREAM_END);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

// Reports may be kept gzipped: a gzipped report reads as the plain one, whatever its name; a cut
// one and one that inflates beyond the cap are refused in one line.
TEST(HostileInputs, GzippedReportsReadAsPlainOnes) {
  const std::string text = fixtures::to_csv(fixtures::baseline_rows());
  const std::string plain = fixtures::write_temp_file("plain.csv", text);
  const std::string packed = fixtures::write_temp_file("packed.csv.gz", gzipped(text));
  EXPECT_EQ(report::read_text_file(packed, report::kMaxReportBytes), text);
  const CliResult plain_summary = run({"summary", plain});
  const CliResult packed_summary = run({"summary", packed});
  EXPECT_EQ(packed_summary.code, 0) << packed_summary.err;
  EXPECT_EQ(packed_summary.out, plain_summary.out);
  // Two members, as `cat a.gz b.gz` makes: both halves.
  const std::size_t half = text.size() / 2;
  const std::string two = fixtures::write_temp_file(
      "two.csv.gz", gzipped(text.substr(0, half)) + gzipped(text.substr(half)));
  EXPECT_EQ(report::read_text_file(two, report::kMaxReportBytes), text);

  const std::string whole = gzipped(text);
  const std::string cut =
      fixtures::write_temp_file("cut.csv.gz", whole.substr(0, whole.size() / 2));
  const CliResult cut_summary = run({"summary", cut});
  EXPECT_EQ(cut_summary.code, 2);
  EXPECT_EQ(cut_summary.err, "collreport: error: " + cut + ": not a whole gzip file (cut off)\n");

  const std::string bomb = fixtures::write_temp_file("bomb.gz", gzipped(std::string(5000, 'x')));
  try {
    report::read_text_file(bomb, 4096);
    ADD_FAILURE() << "a gzip file inflating beyond the cap was read";
  } catch (const report::TextFileError& error) {
    EXPECT_STREQ(error.what(), "too large: inflates beyond 4096 bytes");
  }
}

TEST(HostileInputs, CommandLineErrorsAreOneLineWithThePrefix) {
  const std::string report =
      fixtures::write_temp_file("base.csv", fixtures::to_csv(fixtures::baseline_rows()));
  const std::vector<std::vector<std::string>> command_lines = {
      {},
      {"frobnicate"},
      {"summary"},
      {"compare", report},
      {"compare", "--tolerance", report, report},
      {"compare", "--max-rows", "-3", report, report},
      {"summary", "--bogus\x1b[2J", report},
      {"merge", report, "-o"},
  };
  for (const std::vector<std::string>& args : command_lines) {
    const CliResult result = run(args);
    std::string joined;
    for (const std::string& arg : args) joined += arg + " ";
    EXPECT_EQ(result.code, 2) << joined;
    EXPECT_EQ(result.err.rfind("collreport: error: ", 0), 0u) << joined << ": " << result.err;
    EXPECT_EQ(result.err.find('\n'), result.err.size() - 1) << joined << ": " << result.err;
    EXPECT_EQ(result.err.find('\x1b'), std::string::npos) << joined;
  }
}

}  // namespace
}  // namespace collbench::collreport
