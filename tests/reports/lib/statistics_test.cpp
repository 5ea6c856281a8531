// Tests of the sample statistics: moments, the order-statistics ranks of the median's interval
// against an independent binomial computation, and their coverage on simulated timings; Student's
// t quantile against tables, closed forms and an integral of its density; the mean's interval.
#include "reports/statistics.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace collbench::stats {
namespace {

// P(B <= k) for B ~ Binomial(n, 1/2), term by term from lgamma: independent of the library's
// recurrence.
double binomial_cdf(std::size_t n, std::size_t k) {
  double sum = 0;
  for (std::size_t i = 0; i <= k && i <= n; ++i) {
    const double log_choose =
        std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0);
    sum += std::exp(log_choose - static_cast<double>(n) * std::log(2.0));
  }
  return sum;
}

// Coverage of [x(l), x(n+1-l)]: P(l <= B <= n - l).
double exact_coverage(std::size_t n, std::size_t lower) {
  return 1 - 2 * binomial_cdf(n, lower - 1);
}

TEST(Statistics, MomentsUseTheSampleStandardDeviation) {
  const Moments m = moments({2, 4, 4, 4, 5, 5, 7, 9});
  EXPECT_DOUBLE_EQ(m.mean, 5);
  EXPECT_DOUBLE_EQ(m.stdev, std::sqrt(32.0 / 7));  // squares sum to 32, over n - 1 = 7
  EXPECT_DOUBLE_EQ(m.cv, std::sqrt(32.0 / 7) / 5);

  const Moments one = moments({3.5});
  EXPECT_DOUBLE_EQ(one.mean, 3.5);
  EXPECT_EQ(one.stdev, 0);
  EXPECT_EQ(one.cv, 0);

  const Moments none = moments({});
  EXPECT_EQ(none.mean, 0);
  EXPECT_EQ(none.stdev, 0);

  const Moments zero_mean = moments({-1, 1});
  EXPECT_DOUBLE_EQ(zero_mean.stdev, std::sqrt(2.0));
  EXPECT_EQ(zero_mean.cv, 0);
}

TEST(Statistics, MedianRanksOfSmallSamples) {
  // n = 20: P(B <= 5) = 21700 / 2^20 = 0.0207 <= 2.5% < P(B <= 6) = 60460 / 2^20.
  const auto twenty = median_interval_ranks(20, 0.95);
  ASSERT_TRUE(twenty.has_value());
  EXPECT_EQ(twenty->lower, 6u);
  EXPECT_EQ(twenty->upper, 15u);
  EXPECT_NEAR(twenty->coverage, 1 - 2 * 21700.0 / 1048576, 1e-12);
  EXPECT_NEAR(twenty->coverage, 0.9586, 5e-5);
  // At 99%: P(B <= 3) = 1351 / 2^20 <= 0.5% < P(B <= 4) = 6196 / 2^20.
  const auto strict = median_interval_ranks(20, 0.99);
  ASSERT_TRUE(strict.has_value());
  EXPECT_EQ(strict->lower, 4u);
  EXPECT_EQ(strict->upper, 17u);

  // n = 5: even [min, max] covers only 1 - 2/32 = 93.75%; n = 6 covers 1 - 2/64.
  EXPECT_FALSE(median_interval_ranks(5, 0.95).has_value());
  EXPECT_FALSE(median_interval_ranks(0, 0.95).has_value());
  const auto six = median_interval_ranks(6, 0.95);
  ASSERT_TRUE(six.has_value());
  EXPECT_EQ(six->lower, 1u);
  EXPECT_EQ(six->upper, 6u);
  EXPECT_DOUBLE_EQ(six->coverage, 0.96875);
  ASSERT_TRUE(median_interval_ranks(5, 0.90).has_value());  // 93.75% >= 90%

  EXPECT_THROW(median_interval_ranks(20, 0), std::invalid_argument);
  EXPECT_THROW(median_interval_ranks(20, 1), std::invalid_argument);
  EXPECT_THROW(median_interval_ranks(20, 95), std::invalid_argument);
}

TEST(Statistics, MedianRanksOfLargeSamplesFollowTheNormalApproximation) {
  // P(B <= l - 1) ~ Phi((l - 1 + 0.5 - n/2) / (sqrt(n)/2)) = 2.5%: l = 5000.5 - 1.959964 * 50.
  const auto ranks = median_interval_ranks(10'000, 0.95);
  ASSERT_TRUE(ranks.has_value());
  const double approximate = 5000.5 - 1.959964 * 50;
  EXPECT_LE(std::abs(static_cast<double>(ranks->lower) - approximate), 1.0) << ranks->lower;
  EXPECT_EQ(ranks->upper, 10'001 - ranks->lower);
  EXPECT_GE(ranks->coverage, 0.95);
  EXPECT_LT(ranks->coverage, 0.96);
}

// For every n: symmetric ranks, coverage as computed independently and at least the confidence,
// and the narrowest such (one rank further in covers less).
TEST(Statistics, MedianRanksAreTheNarrowestThatCover) {
  for (double confidence : {0.90, 0.95, 0.99}) {
    for (std::size_t n = 1; n <= 300; ++n) {
      const std::string where = "n = " + std::to_string(n) + " at " + std::to_string(confidence);
      const auto ranks = median_interval_ranks(n, confidence);
      if (!ranks) {
        EXPECT_LT(exact_coverage(n, 1), confidence) << where;
        continue;
      }
      EXPECT_GE(ranks->lower, 1u) << where;
      EXPECT_EQ(ranks->lower + ranks->upper, n + 1) << where;
      EXPECT_GE(ranks->coverage, confidence) << where;
      EXPECT_NEAR(ranks->coverage, exact_coverage(n, ranks->lower), 1e-9) << where;
      if (2 * (ranks->lower + 1) <= n + 1) {
        EXPECT_LT(exact_coverage(n, ranks->lower + 1), confidence) << where;
      }
    }
  }
}

TEST(Statistics, MedianIntervalPicksTheOrderStatistics) {
  std::vector<double> sorted(20);
  for (std::size_t i = 0; i < sorted.size(); ++i) sorted[i] = 10.0 * (i + 1);
  const auto interval = median_interval(sorted, 0.95);
  ASSERT_TRUE(interval.has_value());
  EXPECT_EQ(interval->lo, 60);
  EXPECT_EQ(interval->hi, 150);
  EXPECT_DOUBLE_EQ(interval->relative_half_width(105), 45.0 / 105);
  EXPECT_EQ(interval->relative_half_width(0), 0);
  EXPECT_FALSE(median_interval({1, 2, 3, 4, 5}, 0.95).has_value());
}

// One simulated timing distribution: a sampler and its true median.
struct Population {
  const char* name;
  std::function<double(std::mt19937_64&)> draw;
  double median;
};

// The median of a mixture by bisection on its distribution function.
double mixture_median(double weight, double mean_a, double mean_b, double sigma) {
  const auto normal_cdf = [sigma](double x, double mean) {
    return 0.5 * std::erfc((mean - x) / (sigma * std::sqrt(2.0)));
  };
  double lo = mean_a - 10 * sigma, hi = mean_b + 10 * sigma;
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    const double cdf = weight * normal_cdf(mid, mean_a) + (1 - weight) * normal_cdf(mid, mean_b);
    (cdf < 0.5 ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

std::vector<Population> populations() {
  return {
      {"normal", [](std::mt19937_64& rng) { return std::normal_distribution<double>(100, 5)(rng); },
       100},
      {"lognormal 0.5",
       [](std::mt19937_64& rng) {
         return std::lognormal_distribution<double>(std::log(50.0), 0.5)(rng);
       },
       50},
      {"lognormal 1.0",
       [](std::mt19937_64& rng) {
         return std::lognormal_distribution<double>(std::log(50.0), 1.0)(rng);
       },
       50},
      {"exponential",
       [](std::mt19937_64& rng) { return std::exponential_distribution<double>(1.0 / 20)(rng); },
       20 * std::log(2.0)},
      // GPU timing with stray slow iterations: 90% near 10 us, 10% near 30 us.
      {"bimodal",
       [](std::mt19937_64& rng) {
         const bool slow = std::bernoulli_distribution(0.1)(rng);
         return std::normal_distribution<double>(slow ? 30 : 10, 0.5)(rng);
       },
       mixture_median(0.9, 10, 30, 0.5)},
  };
}

// Whatever the distribution, the intervals cover the true median about as often as promised:
// at least the nominal level and at most the exact (discrete) coverage, within simulation noise
// (2,000 trials: one standard error is 0.005 at most).
TEST(Statistics, IntervalsCoverTheTrueMedianOfSkewedTimings) {
  constexpr double kConfidence = 0.95;
  constexpr int kTrials = 2000;
  std::mt19937_64 rng(20261125);
  for (const Population& population : populations()) {
    for (std::size_t n : {10, 20, 50, 200, 1000}) {
      const auto ranks = median_interval_ranks(n, kConfidence);
      ASSERT_TRUE(ranks.has_value());
      std::vector<double> samples(n);
      int covered = 0;
      for (int trial = 0; trial < kTrials; ++trial) {
        for (double& x : samples) x = population.draw(rng);
        std::sort(samples.begin(), samples.end());
        const auto interval = median_interval(samples, kConfidence);
        if (interval->lo <= population.median && population.median <= interval->hi) ++covered;
      }
      const double fraction = static_cast<double>(covered) / kTrials;
      EXPECT_GE(fraction, kConfidence - 0.02) << population.name << " n = " << n;
      EXPECT_LE(fraction, ranks->coverage + 0.02) << population.name << " n = " << n;
    }
  }
}

TEST(Statistics, BimodalMedianLiesInTheFastMode) {
  // 0.9 * Phi((m - 10) / 0.5) = 0.5: Phi = 5/9, so m = 10 + 0.5 * 0.13971.
  EXPECT_NEAR(mixture_median(0.9, 10, 30, 0.5), 10 + 0.5 * 0.139710, 1e-5);
}

// Published quantiles (checked against a Simpson integral of the density to 1e-11).
TEST(Statistics, StudentQuantilesMatchTables) {
  const struct {
    double probability, degrees_of_freedom, t;
  } table[] = {{0.975, 1, 12.706204736174698}, {0.975, 4, 2.7764451051977987},
               {0.975, 9, 2.2621571627409915}, {0.975, 19, 2.093024054408263},
               {0.975, 29, 2.045229642132703}, {0.975, 100, 1.983971518449634},
               {0.995, 4, 4.604094871415897},  {0.95, 7, 1.894578605090349},
               {0.999, 10, 4.143700494046589}};
  for (const auto& row : table) {
    SCOPED_TRACE(row.degrees_of_freedom);
    EXPECT_NEAR(student_t_quantile(row.probability, row.degrees_of_freedom), row.t, 1e-9 * row.t);
    EXPECT_NEAR(student_t_quantile(1 - row.probability, row.degrees_of_freedom), -row.t,
                1e-9 * row.t);
  }
  EXPECT_EQ(student_t_quantile(0.5, 3), 0);
  // Towards the normal quantile z = 1.959964 as z + (z^3 + z) / 4v + (5z^5 + 16z^3 + 3z) / 96v^2.
  const double z = 1.959963984540054;
  for (double v : {1e4, 1e6, 1e8}) {
    const double expansion = z + (z * z * z + z) / (4 * v) +
                             (5 * std::pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * v * v);
    EXPECT_NEAR(student_t_quantile(0.975, v), expansion, 1e-9) << v;
  }
}

// One and two degrees of freedom have closed forms: Cauchy's tan(pi (p - 1/2)), and
// (2p - 1) / sqrt(2 p (1 - p)).
TEST(Statistics, StudentQuantilesMatchClosedForms) {
  const double pi = std::acos(-1.0);
  for (double p : {1e-6, 0.001, 0.02, 0.3, 0.55, 0.8, 0.975, 0.999, 0.999999}) {
    SCOPED_TRACE(p);
    const double cauchy = std::tan(pi * (p - 0.5));
    EXPECT_NEAR(student_t_quantile(p, 1), cauchy, 1e-9 * std::fabs(cauchy) + 1e-12);
    const double two = (2 * p - 1) / std::sqrt(2 * p * (1 - p));
    EXPECT_NEAR(student_t_quantile(p, 2), two, 1e-9 * std::fabs(two) + 1e-12);
  }
}

// The density of t with `v` degrees of freedom.
double student_density(double x, double v) {
  const double pi = std::acos(-1.0);
  return std::exp(std::lgamma((v + 1) / 2) - std::lgamma(v / 2)) / std::sqrt(v * pi) *
         std::pow(1 + x * x / v, -(v + 1) / 2);
}

// P(0 <= T <= t) by Simpson's rule, on [0, 1] and on a log scale beyond (heavy tails):
// independent of the incomplete beta function.
double density_integral(double t, double v) {
  constexpr int kIntervals = 20000;
  const auto simpson = [](auto f, double from, double to) {
    const double h = (to - from) / kIntervals;
    double sum = f(from) + f(to);
    for (int i = 1; i < kIntervals; ++i) sum += f(from + i * h) * (i % 2 ? 4 : 2);
    return sum * h / 3;
  };
  const auto density = [v](double x) { return student_density(x, v); };
  const double near = simpson(density, 0, std::min(t, 1.0));
  if (t <= 1) return near;
  const auto on_log_scale = [v](double s) { return student_density(std::exp(s), v) * std::exp(s); };
  return near + simpson(on_log_scale, 0, std::log(t));
}

// Any degrees of freedom, whole or not: the density integrates to the probability asked for.
TEST(Statistics, StudentQuantilesInvertTheDistribution) {
  for (double v : {0.5, 1.5, 3.0, 7.25, 40.0, 1000.0}) {
    for (double p : {0.6, 0.9, 0.975, 0.995}) {
      SCOPED_TRACE(v);
      SCOPED_TRACE(p);
      EXPECT_NEAR(0.5 + density_integral(student_t_quantile(p, v), v), p, 1e-8);
    }
  }
}

TEST(Statistics, StudentQuantileRefusesOutOfRange) {
  for (double p : {0.0, 1.0, -0.1, 1.5, std::nan("")}) {
    EXPECT_THROW(student_t_quantile(p, 5), std::invalid_argument) << p;
  }
  for (double v : {0.0, -1.0, std::nan(""), HUGE_VAL}) {
    EXPECT_THROW(student_t_quantile(0.9, v), std::invalid_argument) << v;
  }
}

TEST(Statistics, MeanIntervalIsTTimesTheStandardError) {
  // Mean 5, stdev sqrt(32/7), n = 8: half-width t(0.975, 7) x stdev / sqrt(8).
  const auto interval = mean_interval({2, 4, 4, 4, 5, 5, 7, 9}, 0.95);
  ASSERT_TRUE(interval.has_value());
  const double half_width = 2.3646242516 * std::sqrt(32.0 / 7) / std::sqrt(8.0);
  EXPECT_NEAR(interval->lo, 5 - half_width, 1e-9);
  EXPECT_NEAR(interval->hi, 5 + half_width, 1e-9);
  EXPECT_NEAR(interval->relative_half_width(5), half_width / 5, 1e-9);

  const auto constant = mean_interval({3, 3, 3}, 0.95);
  ASSERT_TRUE(constant.has_value());
  EXPECT_EQ(constant->lo, 3);
  EXPECT_EQ(constant->hi, 3);
  EXPECT_FALSE(mean_interval({3}, 0.95).has_value());
  EXPECT_FALSE(mean_interval({}, 0.95).has_value());
  EXPECT_THROW(mean_interval({1, 2}, 1.0), std::invalid_argument);
}

// One stray 2.4 ms sample among nineteen of 330 us moves the mean by 31%; its interval widens to
// half the mean, while the median's stays on 330 us.
TEST(Statistics, OneStraySampleWidensTheMeansIntervalNotTheMedians) {
  std::vector<double> samples(19, 330.0);
  samples.push_back(2400);
  const auto mean = mean_interval(samples, 0.95);
  ASSERT_TRUE(mean.has_value());
  EXPECT_GT(mean->relative_half_width(moments(samples).mean), 0.45);
  std::sort(samples.begin(), samples.end());
  const auto median = median_interval(samples, 0.95);
  ASSERT_TRUE(median.has_value());
  EXPECT_EQ(median->relative_half_width(330), 0);
}

// At 95%, the mean's interval covers the true mean of normal timings in 95% of trials.
TEST(Statistics, MeanIntervalsCoverTheTrueMeanOfNormalTimings) {
  std::mt19937_64 rng(20261127);
  std::normal_distribution<double> timing(100, 5);
  for (std::size_t n : {2, 5, 20, 200}) {
    std::vector<double> samples(n);
    int covered = 0;
    constexpr int kTrials = 4000;
    for (int trial = 0; trial < kTrials; ++trial) {
      for (double& x : samples) x = timing(rng);
      const auto interval = mean_interval(samples, 0.95);
      if (interval->lo <= 100 && 100 <= interval->hi) ++covered;
    }
    EXPECT_NEAR(static_cast<double>(covered) / kTrials, 0.95, 0.015) << "n = " << n;
  }
}

}  // namespace
}  // namespace collbench::stats
