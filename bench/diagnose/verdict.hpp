// The verdict of a diagnosis: which ranks, GPUs, links or nodes are suspect, each with the figure
// that condemns it, what the figure should have been and the ratio, or "no suspect" with the
// margins by which every figure cleared its threshold.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "expectations.hpp"
#include "figures.hpp"

namespace collbench::diagnose {

// In order of severity: a missing rank stops everything; a slow GPU or node slows every
// collective it is in; a slow link only those that use it; a straggler costs its lateness.
enum class SuspectKind { missing_rank, slow_gpu, slow_node, slow_link, straggler };

const char* kind_name(SuspectKind kind);  // "missing_rank", "slow_gpu", ...
// The kind named `name`, or nothing for an unknown name.
std::optional<SuspectKind> kind_from_name(const std::string& name);

// Few on purpose: each is a ratio to the machine's own best, so none depends on the hardware.
struct Thresholds {
  // A bandwidth (copy, pair, collective) below slow_ratio x its expectation is slow: well past
  // run-to-run jitter (a few percent) yet short of the halving a real fault brings.
  double slow_ratio = 0.8;
  // A pair latency above latency_ratio x the best pair's of its class is slow: small-message
  // latency jitters more than bandwidth, hence the wider band.
  double latency_ratio = 1.5;
  // A rank is late when its mean lateness exceeds the larger of straggler_min_us (below it, host
  // thread scheduling noise) and straggler_op_share x the op time (lateness that costs a share
  // of every op).
  double straggler_min_us = 50;
  double straggler_op_share = 0.25;

  double lateness_limit_us(double op_time_us) const;
};

struct Suspect {
  SuspectKind kind = SuspectKind::slow_gpu;
  int rank = 0;             // the rank it names; for a node or a group, its lowest
  std::optional<int> peer;  // slow_link between two ranks: the other end
  std::vector<int> ranks;   // every rank it names: one, a pair, a node's, a group's
  std::string host;
  std::string pci_bus_id;  // empty for a node or a group
  // The most telling evidence: the figure, what it should have been, and figure / expectation
  // (below 1 for a bandwidth, above 1 for a latency or a lateness; 0 for a missing rank).
  double figure = 0;
  double expectation = 0;
  double ratio = 0;
  std::vector<std::string> evidence;  // one line each
};

// The worst ratio seen per kind of figure, absent where nothing was measured: how far a clean
// run stood from the thresholds.
struct Margins {
  std::optional<double> copy;            // lowest copy / best copy (slow below slow_ratio)
  std::optional<double> pair_bandwidth;  // lowest pair / best pair of its class
  std::optional<double> pair_latency;    // highest latency / best of its class
  std::optional<double> collective;      // lowest busbw / what the pairs predict
  std::optional<double> lateness;        // highest lateness / its limit (late above 1)
};

struct Verdict {
  std::vector<Suspect> suspects;  // by severity (kind), then by how far from healthy, then rank
  Margins margins;
  Expectations expectations;
  Thresholds thresholds;

  bool clean() const { return suspects.empty(); }
  int exit_status() const { return clean() ? 0 : 1; }
};

// Applies the rules in order: missing ranks, slow GPUs, slow links, slow nodes (folding the GPUs
// or links of one host), stragglers, then slow collectives (evidence for the suspects of their
// smallest slow group, or a suspect of their own when nothing else explains them).
Verdict judge(const Measurements& measurements, const Thresholds& thresholds = {});

// Whether a collective fell below slow_ratio x expected_busbw_gbps (never when that is unknown,
// 0): what the GPU side's bisection asks of every group it measures.
bool group_is_slow(const GroupFigures& group, const Thresholds& thresholds);

}  // namespace collbench::diagnose
