// Moments, the order-statistics interval of the median, Student's t and the mean's interval.
#include "reports/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace collbench::stats {
namespace {

void check_confidence(double confidence) {
  if (!(confidence > 0 && confidence < 1)) {
    throw std::invalid_argument("confidence must lie strictly between 0 and 1");
  }
}

// The continued fraction of the regularized incomplete beta I_x(a, b) (modified Lentz), which
// converges fast for x < (a + 1) / (a + b + 2); in O(sqrt(max(a, b))) steps for large a, b.
double incomplete_beta_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr double kEpsilon = 1e-15;
  constexpr int kMaxSteps = 1000000;
  double c = 1;
  double d = 1 - (a + b) * x / (a + 1);
  d = 1 / (std::fabs(d) < kTiny ? kTiny : d);
  double fraction = d;
  for (int m = 1; m <= kMaxSteps; ++m) {
    const double md = m;
    for (int half = 0; half < 2; ++half) {  // the even, then the odd term of step m
      const double numerator =
          half == 0 ? md * (b - md) * x / ((a + 2 * md - 1) * (a + 2 * md))
                    : -(a + md) * (a + b + md) * x / ((a + 2 * md) * (a + 2 * md + 1));
      d = 1 + numerator * d;
      d = 1 / (std::fabs(d) < kTiny ? kTiny : d);
      c = 1 + numerator / c;
      if (std::fabs(c) < kTiny) c = kTiny;
      fraction *= d * c;
      if (half == 1 && std::fabs(d * c - 1) < kEpsilon) return fraction;
    }
  }
  return fraction;
}

// log Gamma(x) - log Gamma(x + b) for x >= 10 by Stirling's series: lgamma's values near 1e9 at
// x = 5e7 would leave their difference only 1e-7 accurate (and the t quantile 1e-8).
double log_gamma_ratio(double x, double b) {
  const auto correction = [](double y) {  // lgamma(y) - Stirling's leading terms
    const double y2 = y * y;
    return 1 / (12 * y) - 1 / (360 * y * y2) + 1 / (1260 * y * y2 * y2);
  };
  return (x - 0.5) * -std::log1p(b / x) - b * std::log(x + b) + b + correction(x) -
         correction(x + b);
}

// log B(a, b) = lgamma(a) + lgamma(b) - lgamma(a + b).
double log_beta(double a, double b) {
  if (a >= 10 && a >= b) return std::lgamma(b) + log_gamma_ratio(a, b);
  if (b >= 10) return std::lgamma(a) + log_gamma_ratio(b, a);
  return std::lgamma(a) + std::lgamma(b) - std::lgamma(a + b);
}

// P(T > t) for t > 0: half of I_x(v / 2, 1 / 2) at x = v / (v + t^2), the regularized incomplete
// beta function. log x and log(1 - x) come from log1p, which keeps them exact where x is near 1.
double student_t_upper_tail(double t, double degrees_of_freedom) {
  const double a = degrees_of_freedom / 2;
  const double b = 0.5;
  const double t2_over_v = t * t / degrees_of_freedom;
  const double x = 1 / (1 + t2_over_v);
  const double log_x = -std::log1p(t2_over_v);
  const double log_one_minus_x = std::log(t2_over_v) - std::log1p(t2_over_v);
  const double front = std::exp(a * log_x + b * log_one_minus_x - log_beta(a, b));
  const double beta = x < (a + 1) / (a + b + 2)
                          ? front * incomplete_beta_fraction(a, b, x) / a
                          : 1 - front * incomplete_beta_fraction(b, a, 1 - x) / b;
  return beta / 2;
}

}  // namespace

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
  check_confidence(confidence);
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

double student_t_quantile(double probability, double degrees_of_freedom) {
  if (!(probability > 0 && probability < 1)) {
    throw std::invalid_argument("a t quantile's probability must lie strictly between 0 and 1");
  }
  if (!(degrees_of_freedom > 0) || !std::isfinite(degrees_of_freedom)) {
    throw std::invalid_argument("a t quantile needs positive, finite degrees of freedom");
  }
  if (probability == 0.5) return 0;
  // The distribution is symmetric: find t >= 0 with P(T > t) = the smaller tail, by bisection
  // (the tail falls monotonically in t), after doubling an upper bound until it brackets.
  const double tail = probability < 0.5 ? probability : 1 - probability;
  double lo = 0;
  double hi = 1;
  while (student_t_upper_tail(hi, degrees_of_freedom) > tail && hi < 1e300) hi *= 2;
  for (int step = 0; step < 2000 && hi - lo > 1e-13 * hi; ++step) {
    const double middle = lo + (hi - lo) / 2;
    (student_t_upper_tail(middle, degrees_of_freedom) > tail ? lo : hi) = middle;
  }
  const double t = lo + (hi - lo) / 2;
  return probability < 0.5 ? -t : t;
}

std::optional<Interval> mean_interval(const std::vector<double>& samples, double confidence) {
  check_confidence(confidence);
  const std::size_t n = samples.size();
  if (n < 2) return std::nullopt;
  const Moments m = moments(samples);
  const double t = student_t_quantile(1 - (1 - confidence) / 2, static_cast<double>(n - 1));
  const double half_width = t * m.stdev / std::sqrt(static_cast<double>(n));
  return Interval{m.mean - half_width, m.mean + half_width};
}

}  // namespace collbench::stats
