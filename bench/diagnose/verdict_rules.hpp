// The verdict's rules, one family per source file (verdict_*_rules.cpp), and the readings and
// evidence text they share. Internal to judge().
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "figure_text.hpp"
#include "verdict.hpp"

namespace collbench::diagnose {

// What every rule reads.
struct Judging {
  const Measurements& measurements;
  const Thresholds& thresholds;
  Expectations expectations;
};

// A figure against its expectation.
struct Reading {
  double figure = 0;
  double expectation = 0;
  double ratio() const { return expectation > 0 ? figure / expectation : 0; }
};

// How far from healthy a ratio is, lower is worse: half the bandwidth (0.5) and twice the
// latency (2) weigh alike.
double health(double ratio);

// A suspect naming one rank (its host and GPU from the identities), weighed by `reading`.
Suspect rank_suspect(const Judging& judging, SuspectKind kind, int rank, const Reading& reading);
// Makes `reading` the suspect's figure when it is further from healthy than the current one.
void weigh(Suspect& suspect, const Reading& reading);

// One directed pair judged against the best pair of its class.
struct PairReading {
  Reading bandwidth;
  Reading latency;
  bool slow_bandwidth = false;
  bool slow_latency = false;
  bool slow() const { return slow_bandwidth || slow_latency; }
  // The worse of the two readings.
  const Reading& worst() const;
};
PairReading read_pair(const Judging& judging, const PairFigures& pair);
// "0->1 180 GB/s against the best pair's 370 (0.49×)", and the latency likewise; only the slow
// parts.
std::vector<std::string> pair_evidence(const Judging& judging, const PairFigures& pair,
                                       const PairReading& reading);

// When every pair in `group` is slow while some pair in `elsewhere` is not (so that the run's
// expectations still hold somewhere), the least slow pair of the group: even that one is slow.
struct LeastSlowPair {
  const PairFigures* pair = nullptr;
  PairReading reading;
};
std::optional<LeastSlowPair> every_pair_slow(
    const Judging& judging, const std::function<bool(const PairFigures&)>& group,
    const std::function<bool(const PairFigures&)>& elsewhere);

bool names_rank(const Suspect& suspect, int rank);

// The rule families, applied by judge() in this order.
std::vector<Suspect> missing_rank_suspects(const Judging& judging);
std::vector<Suspect> straggler_suspects(const Judging& judging);
// `explained`: suspects whose ranks' slow pairs have another cause (a missing or late rank keeps
// the other end of every pair waiting), so that those pairs condemn no GPU.
std::vector<Suspect> slow_gpu_suspects(const Judging& judging,
                                       const std::vector<Suspect>& explained);
// Slow pairs whose two ranks are not already suspects.
std::vector<Suspect> slow_link_suspects(const Judging& judging, const std::vector<Suspect>& so_far);
// Folds every GPU of a host, or every link crossing from it, into one slow_node suspect.
void fold_slow_nodes(const Judging& judging, std::vector<Suspect>& suspects);
// Slow collectives: evidence for the suspects of their smallest slow group, else suspects.
void explain_slow_groups(const Judging& judging, std::vector<Suspect>& suspects);
// The expectation of a collective: its own, else the ring bound of its pairs.
double expected_busbw_gbps(const Judging& judging, const GroupFigures& group);

Margins margins_of(const Judging& judging);

}  // namespace collbench::diagnose
