// Time statistics and bandwidths.
#include "core/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace collbench {

double percentile(std::vector<double> values, double q) {
  if (values.empty()) throw std::invalid_argument("percentile of no values");
  std::sort(values.begin(), values.end());
  const double position = q / 100.0 * static_cast<double>(values.size() - 1);
  const std::size_t below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, values.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return values[below] + (values[above] - values[below]) * fraction;
}

TimeStats time_stats(const std::vector<double>& iteration_us) {
  TimeStats stats;
  if (iteration_us.empty()) return stats;
  stats.mean_us = std::accumulate(iteration_us.begin(), iteration_us.end(), 0.0) / iteration_us.size();
  stats.min_us = *std::min_element(iteration_us.begin(), iteration_us.end());
  stats.max_us = *std::max_element(iteration_us.begin(), iteration_us.end());
  stats.p50_us = percentile(iteration_us, 50);
  stats.p99_us = percentile(iteration_us, 99);
  return stats;
}

CaseMetrics case_metrics(const Case& c, const std::vector<double>& iteration_us, double link_peak_gbps) {
  CaseMetrics metrics;
  metrics.time = time_stats(iteration_us);
  if (metrics.time.mean_us > 0) {
    const double bytes = algbw_bytes(*c.spec, c.counts, c.type, c.ranks);
    metrics.algbw_gbps = bytes / (metrics.time.mean_us * 1e-6) / 1e9;
    metrics.busbw_gbps = metrics.algbw_gbps * c.spec->bus_factor(c.ranks);
    if (link_peak_gbps > 0) metrics.peak_fraction = metrics.busbw_gbps / link_peak_gbps;
  }
  return metrics;
}

}  // namespace collbench
