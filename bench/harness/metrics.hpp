// From per-iteration times to the reported figures: time statistics, algbw and busbw
// (nccl-tests' doc/PERFORMANCE.md definitions, read from the registry).
#pragma once

#include <vector>

#include "sweep_plan.hpp"

namespace collbench {

struct TimeStats {
  double mean_us = 0;
  double min_us = 0;
  double p50_us = 0;
  double p99_us = 0;
  double max_us = 0;
};

struct CaseMetrics {
  TimeStats time;
  double algbw_gbps = 0;  // algorithm bytes / mean time
  double busbw_gbps = 0;  // algbw * the registry's bus factor
};

// Percentile `q` in [0, 100] of `values` by linear interpolation between order statistics
// (numpy's default). `values` must not be empty.
double percentile(std::vector<double> values, double q);
TimeStats time_stats(const std::vector<double>& iteration_us);
CaseMetrics case_metrics(const Case& c, const std::vector<double>& iteration_us);

}  // namespace collbench
