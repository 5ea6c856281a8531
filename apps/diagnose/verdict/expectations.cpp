// Expectations: medians and robust spreads of each kind of figure in this run.
#include "verdict/expectations.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "reports/statistics.hpp"

namespace collbench::diagnose {
namespace {

// The scale that makes the median absolute deviation estimate a normal standard deviation.
constexpr double kMadToSigma = 1.4826;

// The median of the figures themselves (so a reference reads as a figure did), the spread of
// their logarithms around its logarithm.
Reference reference_of_kept(const std::vector<double>& kept) {
  Reference reference;
  reference.figures = static_cast<int>(kept.size());
  if (kept.empty()) return reference;
  reference.median = stats::median(kept);
  if (reference.figures < kMinFiguresForSpread) return reference;
  const double median_log = std::log(reference.median);
  std::vector<double> deviations;
  for (double figure : kept) deviations.push_back(std::abs(std::log(figure) - median_log));
  reference.log_spread = kMadToSigma * stats::median(deviations);
  return reference;
}

std::vector<double> measured(const std::vector<double>& figures, std::size_t left_out,
                             const HealthyBand* band) {
  std::vector<double> kept;
  for (std::size_t i = 0; i < figures.size(); ++i) {
    if (i != left_out && figures[i] > 0) kept.push_back(figures[i]);
  }
  if (!band || kept.empty()) return kept;
  const double best = band->higher_is_better ? *std::max_element(kept.begin(), kept.end())
                                             : *std::min_element(kept.begin(), kept.end());
  const double edge = best * band->effect_ratio;
  std::vector<double> healthy;
  for (double figure : kept) {
    if (band->higher_is_better ? figure >= edge : figure <= edge) healthy.push_back(figure);
  }
  return healthy;
}

}  // namespace

Reference reference_without(const std::vector<double>& figures, std::size_t index,
                            const HealthyBand* band) {
  return reference_of_kept(measured(figures, index, band));
}

Reference reference_of(const std::vector<double>& figures, const HealthyBand* band) {
  return reference_of_kept(measured(figures, figures.size(), band));
}

Expectations expectations_of(const Measurements& measurements) {
  std::vector<double> copies;
  std::vector<double> computes;
  for (const GpuFigures& gpu : measurements.gpus) {
    copies.push_back(gpu.copy_gbps);
    computes.push_back(gpu.compute_tflops);
  }
  // Index 0 within hosts, 1 across.
  std::vector<double> bandwidths[2];
  std::vector<double> latencies[2];
  for (const PairFigures& pair : measurements.pairs) {
    const int crossing = crosses_hosts(measurements, pair.src, pair.dst) ? 1 : 0;
    bandwidths[crossing].push_back(pair.bandwidth_gbps);
    latencies[crossing].push_back(pair.latency_us);
  }
  Expectations expectations;
  expectations.copy_gbps = reference_of(copies);
  expectations.compute_tflops = reference_of(computes);
  expectations.within_host = {reference_of(bandwidths[0]), reference_of(latencies[0])};
  expectations.across_hosts = {reference_of(bandwidths[1]), reference_of(latencies[1])};
  expectations.link_peak_gbps = measurements.link_peak_gbps;
  return expectations;
}

bool crosses_hosts(const Measurements& measurements, int a, int b) {
  const RankIdentity* first = identity_of(measurements, a);
  const RankIdentity* second = identity_of(measurements, b);
  return first && second && first->host != second->host;
}

const PairFigures* find_pair(const Measurements& measurements, int src, int dst) {
  for (const PairFigures& pair : measurements.pairs) {
    if (pair.src == src && pair.dst == dst) return &pair;
  }
  return nullptr;
}

double ring_busbw_bound_gbps(const Measurements& measurements, const std::vector<int>& ranks,
                             double efficiency) {
  if (ranks.size() < 2) return 0;
  double slowest_gbps = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const PairFigures* link = find_pair(measurements, ranks[i], ranks[(i + 1) % ranks.size()]);
    if (link) slowest_gbps = std::min(slowest_gbps, link->bandwidth_gbps);
  }
  return slowest_gbps == std::numeric_limits<double>::infinity() ? 0 : slowest_gbps * efficiency;
}

}  // namespace collbench::diagnose
