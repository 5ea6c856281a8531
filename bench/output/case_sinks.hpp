// Where collbench's measured cases go: the console table, the report rows (row_sinks.hpp) and
// the trace, when asked.
// Sinks only read what the runner produced; none reaches back into it.
#pragma once

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/metrics.hpp"
#include "measure/runner.hpp"
#include "output/chrome_trace.hpp"
#include "output/row_sinks.hpp"
#include "telemetry/run_metadata.hpp"

namespace collbench {

class CaseSink {
 public:
  virtual ~CaseSink() = default;
  virtual void on_case(const Case& c, const CaseOutcome& outcome, const CaseMetrics& metrics) = 0;
};

// The CSV row for a case (the one place a Case and its outcome become a ReportRow).
report::ReportRow make_report_row(const RunMetadata& metadata, const MeasureSettings& settings,
                                  const Case& c, const CaseOutcome& outcome,
                                  const CaseMetrics& metrics);

// Each case as a report row (make_report_row), handed to the row sinks (the CSV report ...).
class ReportRowSink final : public CaseSink {
 public:
  ReportRowSink(std::vector<std::unique_ptr<RowSink>> sinks, const RunMetadata& metadata,
                const MeasureSettings& settings);
  void on_case(const Case& c, const CaseOutcome& outcome, const CaseMetrics& metrics) override;

 private:
  std::vector<std::unique_ptr<RowSink>> sinks_;
  RunMetadata metadata_;
  MeasureSettings settings_;
};

// A Chrome/Perfetto trace: each rank's timed iterations as complete events (main thread only).
class TraceSink final : public CaseSink {
 public:
  explicit TraceSink(const std::string& path) : writer_(path) {}
  void on_case(const Case& c, const CaseOutcome& outcome, const CaseMetrics& metrics) override;

 private:
  ChromeTraceWriter writer_;
};

// With --repeat: each case's p50 in every pass, and at the end how far the passes drifted apart
// (the slowest pass's p50 over the fastest's, less 1), which no single pass's interval shows.
class PassSpreadSummary final : public CaseSink {
 public:
  void on_case(const Case& c, const CaseOutcome& outcome, const CaseMetrics& metrics) override;
  // The median and widest spreads and the `listed` widest cases; nothing with fewer than 2 passes.
  void print(std::FILE* out, std::size_t listed = 5) const;

 private:
  struct Passes {
    std::string name;  // display_name of the case's first pass
    std::vector<double> p50_us;
  };
  std::map<std::string, Passes> by_case_;  // by benchmark_name of the first pass
};

// --split: "groups: [0,2] 12.34 us 45.67 GB/s | [1,3] 12.50 us 45.10 GB/s | aggregate busbw 90.20
// GB/s", each group's own mean time and busbw, then the aggregate.
std::string describe_group_metrics(const Case& c, const CaseMetrics& metrics);

// The nccl-tests-like table: one aligned line per case, a heading per (op, algo, ranks, config)
// group.
class ConsoleTable final : public CaseSink {
 public:
  explicit ConsoleTable(std::FILE* out) : out_(out) {}
  void on_case(const Case& c, const CaseOutcome& outcome, const CaseMetrics& metrics) override;
  static std::string column_header();
  static std::string format_line(const Case& c, const CaseOutcome& outcome,
                                 const CaseMetrics& metrics);

 private:
  std::FILE* out_;
  std::string group_;
};

}  // namespace collbench
