// The verdict of a diagnosis: which ranks, GPUs, links or nodes are suspect, each with the figure
// that condemns it, its reference and how many spreads it stood beyond it, or "no suspect" with
// the margins, in spreads, by which every kind of figure stayed clear of being flagged.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "reports/arrival.hpp"
#include "verdict/expectations.hpp"
#include "verdict/figures.hpp"

namespace collbench::diagnose {

// In order of severity: a missing rank stops everything; a slow GPU or a starved host slows every
// collective it is in; a slow node every one crossing it; a link endpoint every transfer through
// one side of a GPU; a slow link only those that use it; a straggler costs its lateness.
enum class SuspectKind {
  missing_rank,
  slow_gpu,
  starved_host,
  slow_node,
  link_endpoint,
  slow_link,
  straggler
};

const char* kind_name(SuspectKind kind);  // "missing_rank", "slow_gpu", ...
// The kind named `name`, or nothing for an unknown name.
std::optional<SuspectKind> kind_from_name(const std::string& name);
// "missing_rank, slow_gpu, ..., straggler": every name, for messages.
std::string kind_names();

// How far a figure may stray before it is flagged. Every figure is judged against the others of
// its kind in the same run, so none of these depends on the hardware.
struct Thresholds {
  // A figure is flagged only beyond spread_factor spreads of its kind, on the log scale, in the
  // bad direction (5: normal noise goes that far about once in 3.5 million figures)...
  double spread_factor = 5;
  // ...and only when it is also beyond a minimum effect, so that a run whose figures scatter
  // little flags no difference too small to matter: a throughput (copy, compute, pair
  // bandwidth) below bandwidth_effect_ratio x its reference, a latency above
  // latency_effect_ratio x.
  double bandwidth_effect_ratio = 0.85;
  double latency_effect_ratio = 1.5;
  // The least spread each kind is granted, whatever its figures show (a run of four identical
  // GPUs would otherwise flag a 1% difference): copies, compute and pair bandwidths repeat
  // within about 1% on a quiet machine, so 2%; small-message latency moves by microseconds with
  // host and fabric timing, so 5%.
  double copy_spread_floor = 0.02;
  double compute_spread_floor = 0.02;
  double bandwidth_spread_floor = 0.02;
  double latency_spread_floor = 0.05;
  // A collective below slow_ratio x its ring bound (what its slowest neighbour pair predicts) is
  // slow: a collective has one figure, so no spread of its own to judge it by.
  double slow_ratio = 0.8;
  // With a healthy machine's link peak (--link-peak), a pair bandwidth below link_peak_share x
  // that peak is slow whatever the other pairs show: on two GPUs whose one link is loaded both
  // ways, every pair is slow alike and no pair is left to compare with. NCCL's send/recv reaches
  // about 0.9 of the copy engine's peak on NVLink (2xH100), a loaded link about 0.3.
  double link_peak_share = 0.6;
  // The arrival rule (reports/lib/arrival.hpp, shared with collreport ranks): a rank is late
  // beyond arrival_floor_us, arrival_op_share x the op time, and spread_factor spreads of the
  // others' lateness; its host is the cause when its host lateness is arrival_host_share of it.
  double arrival_floor_us = 20;
  double arrival_op_share = 0.05;
  double arrival_host_share = 0.5;

  stats::ArrivalRule arrival_rule() const;
};

// Every threshold once: its name (in the report, and for a command-line option), where it lives
// and what it means, so that --help, the JSON writer and its reader read one table.
struct ThresholdSetting {
  const char* name;  // "spread_factor"; --spread-factor on the command line
  double Thresholds::*value;
  const char* help;
  double most;  // the largest value that makes sense (shares and ratios: 1); the least is above 0
};
const std::vector<ThresholdSetting>& threshold_settings();

struct Suspect {
  SuspectKind kind = SuspectKind::slow_gpu;
  int rank = 0;             // the rank it names; for a node or a group, its lowest
  std::optional<int> peer;  // between two ranks (a slow link, a merged endpoint): the other end
  std::vector<int> ranks;   // every rank it names: one, a pair, a node's, a group's
  // A link endpoint's side: "send", "receive", "both", or "a->b" when the sending side of a and
  // the receiving side of b share their slowest pair; "" for other kinds.
  std::string direction;
  std::string host;
  std::string pci_bus_id;  // empty for a node or a group
  // The most telling evidence: the figure, its reference, figure / reference (below 1 for a
  // bandwidth, above 1 for a latency or a lateness), and how many spreads beyond its reference
  // it stood (0 where it has no spread: counters, a collective, a missing rank).
  double figure = 0;
  double reference = 0;
  double ratio = 0;
  double spreads = 0;
  // False when a figure that condemns it was flagged once and never measured again (an old
  // report, an offline judgement, --rechecks off): its evidence line says so too.
  bool confirmed = true;
  std::vector<std::string> evidence;  // one line each
};

// A figure flagged by the first pass whose targeted recheck, judged against the same reference
// and spread, was fine: noise, not a suspect.
struct ClearedFigure {
  std::string figure_kind;  // "copy", "compute", "pair_bandwidth", "pair_latency", "arrival"
  std::vector<int> ranks;   // the GPU's or the arriving rank, or the pair's src and dst
  double figure = 0;        // as first measured
  double reference = 0;     // for an arrival, its lateness limit
  double spreads = 0;       // beyond the reference (for an arrival: beyond the limit)
  double recheck = 0;       // as measured again
  // "0->1 latency 31.0 us against 8.2 (5.1 spreads) cleared on recheck: 8.4 us"
  std::string line;
};

// How close one kind of figure came to being flagged: its worst figure (the one closest to both
// limits), against its reference.
struct Margin {
  std::string worst;  // "0->1", "rank 2", "all_reduce on ranks 0,1,2,3"
  double figure = 0;
  double reference = 0;  // a collective: its ring bound; an arrival: its lateness limit
  double ratio = 0;      // figure / reference
  // Its deviation in spreads, positive in the bad direction: flagged beyond spread_factor (an
  // arrival: beyond 0, its reference being the limit itself). None for a collective.
  std::optional<double> spreads;
};

// Absent where nothing of the kind was measured.
struct Margins {
  std::optional<Margin> copy;
  std::optional<Margin> compute;
  std::optional<Margin> pair_bandwidth;
  std::optional<Margin> pair_latency;
  std::optional<Margin> collective;
  std::optional<Margin> arrival;
};

struct Verdict {
  // By severity (kind), then by how many spreads beyond its reference, then rank: the root
  // cause first.
  std::vector<Suspect> suspects;
  std::vector<ClearedFigure> cleared;
  Margins margins;
  Expectations expectations;
  Thresholds thresholds;

  bool clean() const { return suspects.empty(); }
  int exit_status() const { return clean() ? 0 : 1; }
};

// What a first judgement flagged, to be measured again alone before it may become evidence: GPUs
// (their copy or compute; a recheck measures both), directed pairs (bandwidth or latency), and
// whether the arrival probe runs again.
struct RecheckRequest {
  std::vector<int> gpus;
  std::vector<std::pair<int, int>> pairs;  // (src, dst)
  bool arrivals = false;

  bool empty() const { return gpus.empty() && pairs.empty() && !arrivals; }
};

// The first pass: every figure of `measurements` (its rechecks ignored) judged as judge() does.
RecheckRequest to_recheck(const Measurements& measurements, const Thresholds& thresholds = {});

// Judges the figures, then names the causes from the rank up: missing ranks; slow GPUs (by their
// own figures only) and starved hosts; slow nodes; link endpoints; slow links; stragglers. The
// figures of a rank already named are its evidence, not suspects of their own; a slow
// collective backs up the suspects inside its smallest slow group, or becomes one of its own. A
// slow copy beside normal compute and slow pairs is the links' traffic in the GPU's memory: the
// evidence of the link suspect, not a slow GPU.
// A flagged figure counts only when its recheck in measurements.rechecks is flagged too (else it
// is cleared); one never rechecked counts, marked unconfirmed.
Verdict judge(const Measurements& measurements, const Thresholds& thresholds = {});

// Whether a collective fell below slow_ratio x expected_busbw_gbps (never when that is unknown,
// 0): what the GPU side's bisection asks of every group it measures.
bool group_is_slow(const GroupFigures& group, const Thresholds& thresholds);

}  // namespace collbench::diagnose
