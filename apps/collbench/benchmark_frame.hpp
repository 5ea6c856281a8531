// collbench's cases as Google Benchmarks: one benchmark registered per case, manual (GPU) time, a
// fixed iteration count, bandwidths as counters. The benchmark body asks the runner for the case
// and hands the outcome to the sinks.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "measure/runner.hpp"
#include "output/case_sinks.hpp"

namespace collbench {

struct SweepTotals {
  int cases = 0;
  int ok = 0;
  int skipped = 0;
  int oom = 0;
  int errors = 0;
  int timeouts = 0;
  std::uint64_t wrong_elements = 0;
  int interrupt_signal = 0;
};

struct SweepContext {
  Runner* runner = nullptr;   // null when only listing
  double link_peak_gbps = 0;  // for peak_fraction; 0 when unknown
  double confidence = 0.95;   // of the intervals
  std::vector<std::unique_ptr<CaseSink>> sinks;
  SweepTotals totals;
};

// Registers one benchmark per case of cases[0, count), named benchmark_name(case), in sweep order.
void register_case_benchmarks(const Case* cases, std::size_t count, SweepContext& context);

}  // namespace collbench
