// A Google Benchmark display reporter that prints nothing: each binary's own console table is its
// display, unless the user asks for Google Benchmark's output (--benchmark_format).
#pragma once

#include <benchmark/benchmark.h>

#include <vector>

namespace collbench {

class SilentReporter final : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

}  // namespace collbench
