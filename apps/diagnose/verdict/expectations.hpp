// What each figure should be on this machine, taken from the machine itself: a figure is judged
// against the median of the other figures of its kind and class in the same run, and against how
// much those scatter, never against constants, so the diagnosis holds on any GPU and any fabric.
#pragma once

#include <cstddef>
#include <vector>

#include "verdict/figures.hpp"

namespace collbench::diagnose {

// Below this many figures their median absolute deviation says little (with 3, one stray figure
// is a third of them), so a reference from fewer carries no spread of its own.
inline constexpr int kMinFiguresForSpread = 4;

// Figures of one kind and class: their median, and their robust spread on the log scale
// (1.4826 x the median absolute deviation of their natural logarithms from the median's, the
// standard deviation of normal noise; 0 with fewer than kMinFiguresForSpread figures). On the
// log scale a bandwidth and a latency, or 370 GB/s and 45 GB/s, scatter in the same units.
struct Reference {
  double median = 0;  // 0 when there is no figure
  double log_spread = 0;
  int figures = 0;  // how many it was taken from
};

// The band of healthy figures of a kind: within `effect_ratio` of the best one (a bandwidth at
// least 0.85x the best, a latency at most 1.5x the best). Figures further from the best are
// candidate faults, not reference material: when another program loads two GPUs' links both
// ways, 10 of 4 GPUs' 12 pairs are slow, and a median of all of them is the slow figure.
struct HealthyBand {
  bool higher_is_better = true;
  double effect_ratio = 1;  // < 1 for a bandwidth; > 1 for a latency
};

// The reference of every figure but figures[index]: what that one is judged against, so that a
// slow figure does not lower its own expectation: the median (and spread) of the others, of
// those in `band` when given. Figures <= 0 (not measured) are left out.
Reference reference_without(const std::vector<double>& figures, std::size_t index,
                            const HealthyBand* band = nullptr);
// The reference of all of them, for the report.
Reference reference_of(const std::vector<double>& figures, const HealthyBand* band = nullptr);

// Pairs within a host (NVLink, PCIe) and pairs across hosts (the network) are judged apart: a
// network pair is not slow for falling short of NVLink.
struct PairExpectation {
  Reference bandwidth_gbps;
  Reference latency_us;
};

// Every kind and class over all its figures: what the report shows as typical of this machine.
struct Expectations {
  Reference copy_gbps;
  Reference compute_tflops;
  PairExpectation within_host;
  PairExpectation across_hosts;
  // The link-peak probe's copy-engine peak, reported beside the pairs but not an expectation:
  // NCCL send/recv reaches a different share of it on every fabric, so judging pairs against it
  // would call healthy links slow.
  double link_peak_gbps = 0;

  const PairExpectation& for_pair(bool crossing_hosts) const {
    return crossing_hosts ? across_hosts : within_host;
  }
};

Expectations expectations_of(const Measurements& measurements);

// Whether ranks `a` and `b` sit on different hosts (ranks without an identity count as one host).
bool crosses_hosts(const Measurements& measurements, int a, int b);

// The pair src -> dst, or null when it was not measured.
const PairFigures* find_pair(const Measurements& measurements, int src, int dst);

// The bus bandwidth the pairs predict for a collective on `ranks`. The model: a ring collective
// is bounded by its slowest link, so the bound is the slowest pair bandwidth among ring
// neighbours in the given order (ranks[i] -> ranks[i + 1], and the last back to the first),
// times `efficiency`, the share of that link each op reaches (the caller's, per op). 0 when no
// neighbour pair was measured.
double ring_busbw_bound_gbps(const Measurements& measurements, const std::vector<int>& ranks,
                             double efficiency = 1.0);

}  // namespace collbench::diagnose
