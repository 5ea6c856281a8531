// The stopping rule of the timed iterations.
#include "core/stop_rule.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "reports/report_row.hpp"
#include "reports/statistics.hpp"

namespace collbench {

double timed_seconds(const std::vector<double>& samples_us, int ops_per_sample) {
  return std::accumulate(samples_us.begin(), samples_us.end(), 0.0) * ops_per_sample * 1e-6;
}

StopDecision next_step(const StopRule& rule, const std::vector<double>& samples_us,
                       int ops_per_sample, double confidence, std::size_t base_batch) {
  if (!rule.adaptive()) return {true, report::kStopFixed, 0};
  const std::size_t n = samples_us.size();
  const double spent_s = timed_seconds(samples_us, ops_per_sample);
  if (n > 0) {
    std::vector<double> sorted = samples_us;
    std::sort(sorted.begin(), sorted.end());
    const double median =
        sorted.size() % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    const auto interval = stats::median_interval(sorted, confidence);
    const auto mean_interval = stats::mean_interval(sorted, confidence);
    const double mean = stats::moments(sorted).mean;
    // Both figures a row reports must be settled: the median (p50, compare) and the mean, which
    // busbw comes from and which one stray slow sample moves as much as its interval shows.
    const bool narrow =
        interval && interval->relative_half_width(median) * 100 <= rule.max_noise_pct &&
        mean_interval && mean_interval->relative_half_width(mean) * 100 <= rule.max_mean_noise_pct;
    const bool floors_met =
        n >= static_cast<std::size_t>(rule.min_samples) && spent_s >= rule.min_time_s;
    if (narrow && floors_met) return {true, report::kStopConverged, 0};
    if (spent_s >= rule.max_time_s) return {true, report::kStopTimeLimit, 0};
  }
  std::size_t next = std::max(base_batch, n / 2);
  if (n < static_cast<std::size_t>(rule.min_samples)) next = std::max(next, rule.min_samples - n);
  if (n > 0 && spent_s > 0) {
    // At the mean sample time so far: reach --min-time, but stay within the time left.
    const double sample_s = spent_s / static_cast<double>(n);
    const double to_min_time = std::ceil((rule.min_time_s - spent_s) / sample_s);
    if (to_min_time > 0)
      next = std::max(next, static_cast<std::size_t>(std::min(to_min_time, 1e9)));
    const double fit = std::ceil((rule.max_time_s - spent_s) / sample_s);
    next = std::min(next, static_cast<std::size_t>(std::max(1.0, std::min(fit, 1e9))));
  }
  return {false, "", std::max<std::size_t>(next, 1)};
}

}  // namespace collbench
