// What each figure should be on this machine, taken from the machine itself: the best GPU and the
// best pair of the same run, never constants, so the diagnosis holds on any GPU and any fabric.
#pragma once

#include <vector>

#include "figures.hpp"

namespace collbench::diagnose {

// The best pair of one class. Pairs within a host (NVLink, PCIe) and pairs across hosts (the
// network) are judged apart: a network pair is not slow for falling short of NVLink.
struct PairExpectation {
  double bandwidth_gbps = 0;  // the highest pair bandwidth; 0 when the class has no pair
  double latency_us = 0;      // the lowest pair latency; 0 when the class has no pair
};

struct Expectations {
  double copy_gbps = 0;  // the best GPU's local copy
  PairExpectation within_host;
  PairExpectation across_hosts;
  // The link-peak probe's copy-engine peak, reported beside the pairs but not an expectation:
  // NCCL send/recv reaches a different share of it on every fabric, so judging pairs against it
  // would call healthy links slow. The best pair is the expectation.
  double link_peak_gbps = 0;

  const PairExpectation& for_pair(bool crossing_hosts) const {
    return crossing_hosts ? across_hosts : within_host;
  }
};

Expectations expectations_of(const Measurements& measurements);

// Whether ranks `a` and `b` sit on different hosts (ranks without an identity count as one host).
bool crosses_hosts(const Measurements& measurements, int a, int b);

// The bus bandwidth the pairs predict for a collective on `ranks`. The model: a ring collective
// is bounded by its slowest link, so the bound is the slowest pair bandwidth among ring
// neighbours in the given order (ranks[i] -> ranks[i + 1], and the last back to the first),
// times `efficiency`, the share of that link each op reaches (the caller's, per op). 0 when no
// neighbour pair was measured.
double ring_busbw_bound_gbps(const Measurements& measurements, const std::vector<int>& ranks,
                             double efficiency = 1.0);

}  // namespace collbench::diagnose
