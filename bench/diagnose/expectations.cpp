// Expectations: the best of each figure in this run.
#include "expectations.hpp"

#include <algorithm>
#include <limits>

namespace collbench::diagnose {
namespace {

void take_best(PairExpectation& best, const PairFigures& pair) {
  best.bandwidth_gbps = std::max(best.bandwidth_gbps, pair.bandwidth_gbps);
  // An unmeasured latency (0) is no evidence of a fast link.
  if (pair.latency_us > 0 && (best.latency_us == 0 || pair.latency_us < best.latency_us)) {
    best.latency_us = pair.latency_us;
  }
}

const PairFigures* find_pair(const Measurements& measurements, int src, int dst) {
  for (const PairFigures& pair : measurements.pairs) {
    if (pair.src == src && pair.dst == dst) return &pair;
  }
  return nullptr;
}

}  // namespace

Expectations expectations_of(const Measurements& measurements) {
  Expectations expectations;
  for (const GpuFigures& gpu : measurements.gpus) {
    expectations.copy_gbps = std::max(expectations.copy_gbps, gpu.copy_gbps);
  }
  for (const PairFigures& pair : measurements.pairs) {
    const bool crossing = crosses_hosts(measurements, pair.src, pair.dst);
    take_best(crossing ? expectations.across_hosts : expectations.within_host, pair);
  }
  expectations.link_peak_gbps = measurements.link_peak_gbps;
  return expectations;
}

bool crosses_hosts(const Measurements& measurements, int a, int b) {
  const RankIdentity* first = identity_of(measurements, a);
  const RankIdentity* second = identity_of(measurements, b);
  return first && second && first->host != second->host;
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
