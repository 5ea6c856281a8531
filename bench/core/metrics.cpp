// Time statistics and bandwidths.
#include "core/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "reports/statistics.hpp"

namespace collbench {
namespace {

double sorted_percentile(const std::vector<double>& sorted, double q) {
  const double position = q / 100.0 * static_cast<double>(sorted.size() - 1);
  const std::size_t below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + (sorted[above] - sorted[below]) * fraction;
}

}  // namespace

double percentile(std::vector<double> values, double q) {
  if (values.empty()) throw std::invalid_argument("percentile of no values");
  std::sort(values.begin(), values.end());
  return sorted_percentile(values, q);
}

TimeStats time_stats(const std::vector<double>& iteration_us, double confidence) {
  TimeStats stats;
  if (iteration_us.empty()) return stats;
  std::vector<double> sorted = iteration_us;
  std::sort(sorted.begin(), sorted.end());
  stats.samples = static_cast<int>(sorted.size());
  const stats::Moments moments = stats::moments(iteration_us);
  stats.mean_us = moments.mean;
  stats.stdev_us = moments.stdev;
  stats.cv_pct = moments.cv * 100;
  stats.min_us = sorted.front();
  stats.max_us = sorted.back();
  stats.p50_us = sorted_percentile(sorted, 50);
  stats.p99_us = sorted_percentile(sorted, 99);
  if (const auto interval = stats::median_interval(sorted, confidence)) {
    stats.p50_lo_us = interval->lo;
    stats.p50_hi_us = interval->hi;
    stats.confidence_pct = confidence * 100;
    // Only beside the median's, so that confidence_pct 0 still means "no interval" for a row.
    if (const auto mean = stats::mean_interval(sorted, confidence)) {  // from 2 samples on
      stats.mean_lo_us = mean->lo;
      stats.mean_hi_us = mean->hi;
    }
  }
  return stats;
}

CaseMetrics case_metrics(const Case& c, const std::vector<double>& iteration_us,
                         double link_peak_gbps, double confidence, double slowest_rank_mean_us) {
  CaseMetrics metrics;
  metrics.time = time_stats(iteration_us, confidence);
  if (slowest_rank_mean_us > 0 && metrics.time.mean_us > 0) {
    const double shift_us = slowest_rank_mean_us - metrics.time.mean_us;
    metrics.time.mean_us = slowest_rank_mean_us;
    if (metrics.time.mean_hi_us > 0) {
      metrics.time.mean_lo_us += shift_us;
      metrics.time.mean_hi_us += shift_us;
    }
  }
  if (metrics.time.mean_us > 0) {
    const int ranks = c.group_ranks();
    const double bytes = algbw_bytes(*c.spec, c.counts, c.type, ranks);
    const double factor = c.spec->bus_factor(ranks);
    auto busbw = [&](double time_us) {
      return time_us > 0 ? bytes / (time_us * 1e-6) / 1e9 * factor : 0;
    };
    metrics.algbw_gbps = bytes / (metrics.time.mean_us * 1e-6) / 1e9;
    metrics.busbw_gbps = metrics.algbw_gbps * factor;
    if (metrics.time.has_interval()) {
      metrics.busbw_lo_gbps = busbw(metrics.time.p50_hi_us);
      metrics.busbw_hi_gbps = busbw(metrics.time.p50_lo_us);
    }
    if (link_peak_gbps > 0) metrics.peak_fraction = metrics.busbw_gbps / link_peak_gbps;
  }
  return metrics;
}

void add_group_metrics(CaseMetrics& metrics, const Case& c,
                       const std::vector<std::vector<double>>& group_samples_us) {
  metrics.groups.clear();
  metrics.aggregate_busbw_gbps = 0;
  const int ranks = c.group_ranks();
  const double bus_bytes =
      algbw_bytes(*c.spec, c.counts, c.type, ranks) * c.spec->bus_factor(ranks);
  double slowest_mean_us = 0;
  for (const std::vector<double>& samples : group_samples_us) {
    if (samples.empty()) return;
    GroupMetrics group;
    group.time_us_mean = stats::moments(samples).mean;
    group.time_us_p50 = percentile(samples, 50);
    if (group.time_us_mean > 0) group.busbw_gbps = bus_bytes / (group.time_us_mean * 1e-6) / 1e9;
    slowest_mean_us = std::max(slowest_mean_us, group.time_us_mean);
    metrics.groups.push_back(group);
  }
  if (slowest_mean_us > 0) {
    metrics.aggregate_busbw_gbps =
        static_cast<double>(metrics.groups.size()) * bus_bytes / (slowest_mean_us * 1e-6) / 1e9;
  }
}

}  // namespace collbench
