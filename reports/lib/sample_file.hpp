// Reads collbench's JSON Lines sample files (collbench --json) back: the run line, then every case
// with its report row, its samples and each rank's own, validated like a CSV report.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reports/csv_reader.hpp"
#include "reports/report_row.hpp"

namespace collbench::report {

// The first line's "format" and "version": what collbench writes and this reader reads.
inline constexpr const char* kSamplesFormat = "collbench-samples";
inline constexpr int kSamplesFormatVersion = 1;

// The run line: when it started and its metadata, settings and sweep objects as written.
struct SampleRun {
  std::string started;
  nlohmann::json metadata;
  nlohmann::json settings;
  nlohmann::json sweep;
};

// One measured case. Times are per operation, in microseconds; a sample covers ops_per_sample
// operations. Cases that were not measured (skipped, oom, error, timeout) have no samples.
struct SampleCase {
  unsigned line = 0;  // 1-based line of the file
  std::string name;
  ReportRow row;
  std::int64_t ops_per_sample = 1;
  std::vector<double> samples_us;  // per sample, the slowest rank's time
  // Index = rank: that rank's own time of every sample (as many as samples_us); row.ranks
  // entries, which may be left out (none) when samples_us is empty.
  std::vector<std::vector<double>> rank_samples_us;
  // Alike, each rank's lateness per sample: its launch of the sample after the earliest rank's.
  // Optional (files from before it lack it): empty when absent, else shaped like rank_samples_us.
  std::vector<std::vector<double>> rank_lateness_us;
  // Index = rank: which host it ran on (equal values: one host, one clock for launch times).
  // Optional (files from before it lack it): empty when absent, meaning one host for all ranks.
  std::vector<int> rank_hosts;
};

struct SampleFile {
  std::string path;
  SampleRun run;
  std::vector<SampleCase> cases;  // in file order; at least one
  // Set when the last line was cut off (a run interrupted while writing it) and left out: one
  // line, "FILE:LINE: ...", for the caller to print as a warning.
  std::string warning;
};

// Reads and validates the sample file at `path` (at most kMaxReportBytes); throws ReportError,
// one line naming file and line, on any problem but an incomplete last line.
SampleFile read_sample_file(const std::string& path);
// The same for text already in memory; `name` stands for the file in messages.
SampleFile parse_sample_file(const std::string& name, const std::string& text);

// Whether `text` is a sample file rather than a CSV report: its first non-blank character is '{'.
bool looks_like_sample_file(const std::string& text);

// The rows of a CSV report or of a sample file (told apart by content), each with its line.
// A sample file's warning, when it has one, is appended to `warnings`.
Report read_report_rows(const std::string& path, std::vector<std::string>& warnings);

}  // namespace collbench::report
