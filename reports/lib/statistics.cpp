// Moments and the order-statistics interval of the median.
#include "statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace collbench::stats {

Moments moments(const std::vector<double>& samples) {
  Moments m;
  const std::size_t n = samples.size();
  if (n == 0) return m;
  m.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(n);
  if (n < 2) return m;
  double squares = 0;
  for (double x : samples) squares += (x - m.mean) * (x - m.mean);
  m.stdev = std::sqrt(squares / static_cast<double>(n - 1));
  m.cv = m.mean > 0 ? m.stdev / m.mean : 0;
  return m;
}

double median(std::vector<double> samples) {
  if (samples.empty()) throw std::invalid_argument("median of no samples");
  const std::size_t middle = samples.size() / 2;
  std::nth_element(samples.begin(), samples.begin() + middle, samples.end());
  if (samples.size() % 2 == 1) return samples[middle];
  // The largest of the lower half, which nth_element leaves unordered below `middle`; halfway
  // between it and the next, computed as collbench's percentile interpolates.
  const double below = *std::max_element(samples.begin(), samples.begin() + middle);
  return below + (samples[middle] - below) * 0.5;
}

std::optional<OrderRanks> median_interval_ranks(std::size_t n, double confidence) {
  if (!(confidence > 0 && confidence < 1)) {
    throw std::invalid_argument("confidence must lie strictly between 0 and 1");
  }
  if (n == 0) return std::nullopt;
  // P(B <= k) for B ~ Binomial(n, 1/2), summed in log space: 2^-n underflows beyond n = 1074.
  // The lower rank l is the largest with P(B <= l - 1) <= alpha / 2; the interval is symmetric.
  const double tail = (1 - confidence) / 2;
  const double nd = static_cast<double>(n);
  double log_pmf = -nd * std::log(2.0);  // P(B = 0)
  double below = 0;                      // P(B <= k - 1) for the k being tried
  std::size_t lower = 0;
  for (std::size_t k = 1; 2 * k <= n + 1; ++k) {
    const double next = below + std::exp(log_pmf);  // P(B <= k - 1)
    if (next > tail) break;
    below = next;
    lower = k;
    log_pmf += std::log((nd - static_cast<double>(k - 1)) / static_cast<double>(k));
  }
  if (lower == 0) return std::nullopt;
  return OrderRanks{lower, n + 1 - lower, 1 - 2 * below};
}

std::optional<Interval> median_interval(const std::vector<double>& sorted, double confidence) {
  const std::optional<OrderRanks> ranks = median_interval_ranks(sorted.size(), confidence);
  if (!ranks) return std::nullopt;
  return Interval{sorted[ranks->lower - 1], sorted[ranks->upper - 1]};
}

}  // namespace collbench::stats
