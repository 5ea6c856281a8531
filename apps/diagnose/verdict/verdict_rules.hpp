// The verdict's rules, one family per source file (verdict_*_rules.cpp), and the judged figures
// and evidence text they share. Internal to judge() and to_recheck().
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "report/figure_text.hpp"
#include "reports/arrival.hpp"
#include "verdict/verdict.hpp"

namespace collbench::diagnose {

// The kinds of figure judged against the others of their kind.
enum class FigureKind { copy, compute, pair_bandwidth, pair_latency };

// How one kind is judged: which way is bad, the least spread it is granted, the least effect.
struct FigureRule {
  bool lower_is_worse = true;  // a bandwidth; false for a latency
  double spread_floor = 0;
  double effect_ratio = 1;
  // The figures a reference is taken from: those within the minimum effect of the best.
  HealthyBand healthy_band() const { return {lower_is_worse, effect_ratio}; }
};
FigureRule rule_of(FigureKind kind, const Thresholds& thresholds);

// One figure against its reference. `spreads` is log(figure / reference) over the spread, signed
// so that the bad direction (a bandwidth below, a latency above) is positive.
struct Deviation {
  double figure = 0;
  double reference = 0;   // 0: nothing to judge it by (or the figure was not measured)
  double log_spread = 0;  // the larger of the others', the figure's own and the floor
  double spreads = 0;
  bool flagged = false;
  double ratio() const { return reference > 0 ? figure / reference : 0; }
};
// `own_spread`: the figure's relative spread over its own samples (to first order its spread on
// the log scale).
Deviation deviation_of(double figure, double own_spread, const Reference& others,
                       const FigureRule& rule, double spread_factor);
// The same figure measured again, judged against `first`'s reference and spread, so that a
// recheck cannot pass by moving the goalposts.
Deviation recheck_of(const Deviation& first, double figure, const FigureRule& rule,
                     double spread_factor);

// A figure, and its recheck when there is one.
struct JudgedFigure {
  Deviation first;
  std::optional<Deviation> recheck;

  // Flagged, and flagged again (or never rechecked).
  bool suspect() const { return first.flagged && (!recheck || recheck->flagged); }
  bool cleared() const { return first.flagged && recheck && !recheck->flagged; }
  bool unconfirmed() const { return first.flagged && !recheck; }
  // What the verdict believes: the recheck when there is one.
  const Deviation& latest() const { return recheck ? *recheck : first; }
};

struct GpuJudgement {
  const GpuFigures* gpu = nullptr;
  JudgedFigure copy;
  JudgedFigure compute;

  // Judged (measured, with others to compare) and not a suspect: the SMs are not short of time.
  bool compute_normal() const { return compute.first.reference > 0 && !compute.suspect(); }
};

struct PairJudgement {
  const PairFigures* pair = nullptr;
  bool crossing = false;           // across hosts
  bool against_link_peak = false;  // its bandwidth judged against --link-peak, not the others
  JudgedFigure bandwidth;
  JudgedFigure latency;

  bool slow() const { return bandwidth.suspect() || latency.suspect(); }
  bool involves(int rank) const { return pair->src == rank || pair->dst == rank; }
  // The slow figure with the most spreads (either when neither is slow).
  const JudgedFigure& worst() const;
};

// One rank by the arrival rule, and by its recheck: late again when its GPU or host lateness
// measured again is beyond the first pass's limit for it.
struct ArrivalJudging {
  int rank = 0;
  const ArrivalFigures* arrival = nullptr;
  stats::RankArrivalJudgement first;
  const ArrivalFigures* recheck = nullptr;
  bool late_again = false;
  // The recheck judged by the rule on its own, for the margins.
  std::optional<stats::RankArrivalJudgement> again;

  bool suspect() const { return first.late && (!recheck || late_again); }
  bool cleared() const { return first.late && recheck && !late_again; }
};
// The lateness a rank is judged by, and its limit: the GPU's, or the host's when only its host
// was beyond its limit (a start gate absorbed the late launch on the GPU).
struct Lateness {
  double figure_us = 0;
  double limit_us = 0;
};
Lateness lateness_of(const ArrivalFigures& arrival, const stats::RankArrivalJudgement& limits);
// Whether `arrival` is beyond either of the limits of `limits`.
bool beyond_limits(const ArrivalFigures& arrival, const stats::RankArrivalJudgement& limits);

// What every rule reads: the measurements and every figure judged once.
struct Judging {
  const Measurements& measurements;
  const Thresholds& thresholds;
  Expectations expectations;
  std::vector<GpuJudgement> gpus;
  std::vector<PairJudgement> pairs;
  std::vector<ArrivalJudging> arrivals;  // one per rank with an arrival
};
// With `use_rechecks` false, measurements.rechecks is ignored (the first pass).
Judging judging_of(const Measurements& measurements, const Thresholds& thresholds,
                   bool use_rechecks);

const GpuJudgement* gpu_judgement(const Judging& judging, int rank);

// A suspect naming one rank (its host and GPU from the identities), weighed by `deviation`.
Suspect rank_suspect(const Judging& judging, SuspectKind kind, int rank,
                     const Deviation& deviation);
// Makes `deviation` the suspect's figure when it stands more spreads beyond its reference.
void weigh(Suspect& suspect, const Deviation& deviation);
bool names_rank(const Suspect& suspect, int rank);

// Evidence lines: "copy 745 GB/s against 1490 (0.50×, 34.7 spreads; recheck 750)", or
// "...; unconfirmed, no recheck)"; "compute 30.0 TFLOP/s against 60.0 (...)" likewise.
std::string copy_evidence(const JudgedFigure& copy);
std::string compute_evidence(const JudgedFigure& compute);
// "rank 1's local copy 1162 GB/s, 0.78× the others' (12.4 spreads) while its compute is normal:
// its memory carries the links' traffic too".
std::string link_traffic_copy_evidence(int rank, const JudgedFigure& copy);
// "0->1 185 GB/s against 370 (0.50×, 34.7 spreads; recheck 185)" and the latency likewise: only
// the figures that condemn the pair.
std::vector<std::string> pair_evidence(const PairJudgement& pair);
// "2->0 185 GB/s against 370, 0.50×": the worst figure of a slow pair (its recheck when there is
// one), short.
std::string pair_figure_text(const PairJudgement& pair);
// Marks `suspect` unconfirmed when `figure` was flagged and never measured again.
void note_confirmation(Suspect& suspect, const JudgedFigure& figure);

// The rule families, applied by judge() in this order.
std::vector<Suspect> missing_rank_suspects(const Judging& judging);
// The ranks whose copy is a suspect while their compute is normal and a pair of theirs is slow
// by bandwidth: their copy may be the links' traffic in their memory rather than their GPU (link
// traffic shares a GPU's memory with its copy, not its SMs; another process's kernels take both).
// judge() leaves it to the links when a link suspect names the rank.
std::vector<int> copies_beside_slow_pairs(const Judging& judging);
// slow_gpu (its compute, its copy unless its rank is in `loaded`, counters, a late GPU),
// starved_host and straggler (the arrival rule).
std::vector<Suspect> rank_suspects(const Judging& judging, const std::vector<int>& loaded = {});
// Folds every slow GPU of a host into one slow_node suspect.
void fold_slow_gpus(const Judging& judging, std::vector<Suspect>& suspects);

// The pairs between ranks no rank-level suspect names, which the link rules group, and those a
// suspect already explains.
struct SlowPairs {
  std::vector<const PairJudgement*> pool;
  std::set<const PairJudgement*> covered;
  bool uncovered_slow(const PairJudgement* pair) const;
};
// Every pair crossing from one host slow (while some crossing elsewhere is not): a slow_node.
void fold_slow_crossings(const Judging& judging, SlowPairs& slow_pairs,
                         std::vector<Suspect>& suspects);
// Slow pairs: the evidence of the rank-level suspects they touch, else grouped from the top:
// every pair crossing from a host (slow_node), one side of one GPU (link_endpoint), one link
// (slow_link).
void link_suspects(const Judging& judging, std::vector<Suspect>& suspects);
// The copy of every rank in `loaded`, as a line of the suspect that names it (else of one that
// names the other end of a slow pair of it): which links slowed its memory.
void add_link_traffic_copies(const Judging& judging, const std::vector<int>& loaded,
                             std::vector<Suspect>& suspects);
// Slow collectives: evidence for the suspects of their smallest slow group, else suspects.
void explain_slow_groups(const Judging& judging, std::vector<Suspect>& suspects);
// The expectation of a collective: its own, else the ring bound of its pairs.
double expected_busbw_gbps(const Judging& judging, const GroupFigures& group);

std::vector<ClearedFigure> cleared_figures(const Judging& judging);
Margins margins_of(const Judging& judging);

}  // namespace collbench::diagnose
