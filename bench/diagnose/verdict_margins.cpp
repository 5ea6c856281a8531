// The margins: the worst ratio of each kind of figure, whether or not it made a suspect.
#include <algorithm>

#include "verdict_rules.hpp"

namespace collbench::diagnose {
namespace {

void keep_lowest(std::optional<double>& margin, double ratio) {
  margin = margin ? std::min(*margin, ratio) : ratio;
}

void keep_highest(std::optional<double>& margin, double ratio) {
  margin = margin ? std::max(*margin, ratio) : ratio;
}

}  // namespace

Margins margins_of(const Judging& judging) {
  const Measurements& measurements = judging.measurements;
  Margins margins;
  for (const GpuFigures& gpu : measurements.gpus) {
    keep_lowest(margins.copy, Reading{gpu.copy_gbps, judging.expectations.copy_gbps}.ratio());
  }
  for (const PairFigures& pair : measurements.pairs) {
    const PairReading reading = read_pair(judging, pair);
    if (reading.bandwidth.expectation > 0) {
      keep_lowest(margins.pair_bandwidth, reading.bandwidth.ratio());
    }
    if (reading.latency.expectation > 0)
      keep_highest(margins.pair_latency, reading.latency.ratio());
  }
  for (const GroupFigures& group : measurements.groups) {
    const Reading reading{group.busbw_gbps, expected_busbw_gbps(judging, group)};
    if (reading.expectation > 0) keep_lowest(margins.collective, reading.ratio());
  }
  for (const ArrivalFigures& arrival : measurements.arrivals) {
    const double limit_us = judging.thresholds.lateness_limit_us(arrival.op_time_us);
    keep_highest(margins.lateness, Reading{arrival.mean_lateness_us, limit_us}.ratio());
  }
  return margins;
}

}  // namespace collbench::diagnose
