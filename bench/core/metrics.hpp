// From per-iteration times to the reported figures: time statistics with the confidence intervals
// of the median and the mean, algbw and busbw (nccl-tests' doc/PERFORMANCE.md definitions, read
// from the registry).
#pragma once

#include <vector>

#include "core/case.hpp"
#include "reports/report_row.hpp"

namespace collbench {

inline constexpr double kDefaultConfidence = 0.95;

// The time statistics of a case's samples: a report row's time columns, computed here.
using report::TimeStats;

// --split: one group's own figures, from its own samples (each its slowest rank's time).
struct GroupMetrics {
  double time_us_mean = 0;
  double time_us_p50 = 0;
  double busbw_gbps = 0;  // with the group's size, from the mean time
};

struct CaseMetrics {
  TimeStats time;
  double algbw_gbps = 0;  // algorithm bytes / mean time
  double busbw_gbps = 0;  // algbw * the registry's bus factor
  // busbw at the ends of the median's interval (lo from the slow end); 0 without an interval.
  double busbw_lo_gbps = 0;
  double busbw_hi_gbps = 0;
  double peak_fraction = 0;  // busbw / the measured per-GPU link peak; 0 when none is known
  // --split only: each group's figures (Case::groups() order), and every group's bus bytes over
  // the slowest group's mean time.
  std::vector<GroupMetrics> groups;
  double aggregate_busbw_gbps = 0;
};

// Percentile `q` in [0, 100] of `values` by linear interpolation between order statistics
// (numpy's default). `values` must not be empty.
double percentile(std::vector<double> values, double q);
TimeStats time_stats(const std::vector<double>& iteration_us,
                     double confidence = kDefaultConfidence);
// `link_peak_gbps`: the per-GPU link peak (collbench_linkpeak, --link-peak), or 0. Bandwidths are
// those of one communicator (a split group's size under --split, as nccl-tests').
// `slowest_rank_mean_us` (CaseOutcome's): when above 0, the reported mean time, and so algbw and
// busbw, as nccl-tests defines them; the mean's interval keeps its width around it.
CaseMetrics case_metrics(const Case& c, const std::vector<double>& iteration_us,
                         double link_peak_gbps = 0, double confidence = kDefaultConfidence,
                         double slowest_rank_mean_us = 0);
// Fills metrics.groups and aggregate_busbw_gbps from each group's samples (CaseOutcome); nothing
// when there are none.
void add_group_metrics(CaseMetrics& metrics, const Case& c,
                       const std::vector<std::vector<double>>& group_samples_us);

}  // namespace collbench
