// Statistics of per-iteration samples: moments, the confidence interval of the median from
// order statistics, and that of the mean from Student's t. Shared by collbench (every row's
// intervals, the adaptive stopping rule) and collreport (statistical compare).
//
// Why the median and order statistics: GPU iteration times are skewed and carry stray slow
// iterations (a clock ramp, a preempted launch thread). The interval [x(l), x(u)] between two
// order statistics covers the population median with probability P(l <= B < u), B ~
// Binomial(n, 1/2), for any continuous distribution: exact, with no assumption of normality, no
// resampling (so reports are deterministic), and one stray sample moves it by at most one rank.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace collbench::stats {

struct Moments {
  double mean = 0;
  double stdev = 0;  // sample standard deviation (n - 1); 0 for fewer than 2 samples
  double cv = 0;     // stdev / mean; 0 when the mean is 0
};
Moments moments(const std::vector<double>& samples);
// The middle sample, or the mean of the two middle ones: the p50 that collbench reports. Throws
// std::invalid_argument for no samples.
double median(std::vector<double> samples);

// 1-based ranks of the order statistics bounding the median, and the exact coverage of
// [x(lower), x(upper)].
struct OrderRanks {
  std::size_t lower = 0;
  std::size_t upper = 0;
  double coverage = 0;
};
// The narrowest symmetric ranks whose coverage is at least `confidence` (in (0, 1)), or nothing
// when even [min, max] covers less (n = 5 gives 93.75%, so 95% needs 6 samples).
std::optional<OrderRanks> median_interval_ranks(std::size_t n, double confidence);

struct Interval {
  double lo = 0;
  double hi = 0;
  // Half the width relative to the estimate (the --max-noise measure); 0 when the estimate is 0.
  double relative_half_width(double estimate) const {
    return estimate > 0 ? (hi - lo) / 2 / estimate : 0;
  }
};
// The interval of the median of `sorted` (ascending) at `confidence`; nothing when there are too
// few samples for that confidence.
std::optional<Interval> median_interval(const std::vector<double>& sorted, double confidence);

// The quantile of Student's t distribution with `degrees_of_freedom` (> 0): the t with
// P(T <= t) = `probability` (in (0, 1)). Inverts the CDF, computed from the regularized
// incomplete beta function, to about 1e-12 relative. Throws std::invalid_argument otherwise.
double student_t_quantile(double probability, double degrees_of_freedom);

// The interval of the mean of `samples` (any order) at `confidence` (in (0, 1)): mean -+ t x
// stdev / sqrt(n), t the Student quantile of n - 1 degrees of freedom; nothing for fewer than 2
// samples. It assumes the mean is near normal, which many samples make true; what matters here
// is that one stray sample widens it as much as it moves the mean (busbw comes from the mean), so
// that a stopping rule watching it takes more samples.
std::optional<Interval> mean_interval(const std::vector<double>& samples, double confidence);

}  // namespace collbench::stats
