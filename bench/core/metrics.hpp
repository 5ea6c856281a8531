// From per-iteration times to the reported figures: time statistics, algbw and busbw
// (nccl-tests' doc/PERFORMANCE.md definitions, read from the registry).
#pragma once

#include <vector>

#include "sweep/sweep_plan.hpp"

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
  double peak_fraction = 0;  // busbw / the measured per-GPU link peak; 0 when none is known
};

// Percentile `q` in [0, 100] of `values` by linear interpolation between order statistics
// (numpy's default). `values` must not be empty.
double percentile(std::vector<double> values, double q);
TimeStats time_stats(const std::vector<double>& iteration_us);
// `link_peak_gbps`: the per-GPU link peak (collbench_linkpeak, --link-peak), or 0.
CaseMetrics case_metrics(const Case& c, const std::vector<double>& iteration_us, double link_peak_gbps = 0);

}  // namespace collbench
