// Judging every figure once: each against the median and spread of the others of its kind and
// class, then its recheck against the same reference and spread; arrivals by the shared rule.
#include <algorithm>
#include <cmath>

#include "reports/statistics.hpp"
#include "verdict/verdict_rules.hpp"

namespace collbench::diagnose {
namespace {

template <typename Figures>
const typename Figures::value_type* find_rank(const Figures& figures, int rank) {
  for (const auto& figure : figures) {
    if (figure.rank == rank) return &figure;
  }
  return nullptr;
}

const PairFigures* find_in(const std::vector<PairFigures>& pairs, int src, int dst) {
  for (const PairFigures& pair : pairs) {
    if (pair.src == src && pair.dst == dst) return &pair;
  }
  return nullptr;
}

// One figure of every GPU (its value and own spread), judged against the others' and rechecked.
struct GpuFigure {
  FigureKind kind;
  double GpuFigures::*value;
  double GpuFigures::*spread;
  JudgedFigure GpuJudgement::*judged;
};
constexpr GpuFigure kGpuFigures[] = {
    {FigureKind::copy, &GpuFigures::copy_gbps, &GpuFigures::copy_spread, &GpuJudgement::copy},
    {FigureKind::compute, &GpuFigures::compute_tflops, &GpuFigures::compute_spread,
     &GpuJudgement::compute}};

void judge_gpus(Judging& judging, bool use_rechecks) {
  const Measurements& measurements = judging.measurements;
  const double factor = judging.thresholds.spread_factor;
  judging.gpus.resize(measurements.gpus.size());
  for (std::size_t i = 0; i < measurements.gpus.size(); ++i) {
    judging.gpus[i].gpu = &measurements.gpus[i];
  }
  for (const GpuFigure& kind : kGpuFigures) {
    const FigureRule rule = rule_of(kind.kind, judging.thresholds);
    std::vector<double> figures;
    for (const GpuFigures& gpu : measurements.gpus) figures.push_back(gpu.*kind.value);
    for (std::size_t i = 0; i < measurements.gpus.size(); ++i) {
      const GpuFigures& gpu = measurements.gpus[i];
      JudgedFigure& judged = judging.gpus[i].*kind.judged;
      const HealthyBand band = rule.healthy_band();
      judged.first = deviation_of(gpu.*kind.value, gpu.*kind.spread,
                                  reference_without(figures, i, &band), rule, factor);
      const GpuFigures* again =
          use_rechecks ? find_rank(measurements.rechecks.gpus, gpu.rank) : nullptr;
      if (again) judged.recheck = recheck_of(judged.first, again->*kind.value, rule, factor);
    }
  }
}

// The rule a pair bandwidth is judged by against the healthy link peak (--link-peak): slow below
// link_peak_share of it, whatever the other pairs show.
FigureRule link_peak_rule(const Thresholds& thresholds) {
  FigureRule rule = rule_of(FigureKind::pair_bandwidth, thresholds);
  rule.effect_ratio = thresholds.link_peak_share;
  return rule;
}

void judge_pairs(Judging& judging, bool use_rechecks) {
  const Measurements& measurements = judging.measurements;
  const FigureRule bandwidth_rule = rule_of(FigureKind::pair_bandwidth, judging.thresholds);
  const FigureRule latency_rule = rule_of(FigureKind::pair_latency, judging.thresholds);
  const FigureRule peak_rule = link_peak_rule(judging.thresholds);
  const double link_peak_gbps = measurements.link_peak_gbps;
  const double factor = judging.thresholds.spread_factor;
  // Per class (0 within hosts, 1 across), the figures and which pair each belongs to.
  std::vector<double> bandwidths[2];
  std::vector<double> latencies[2];
  std::vector<std::size_t> members[2];
  const HealthyBand bandwidth_band = bandwidth_rule.healthy_band();
  const HealthyBand latency_band = latency_rule.healthy_band();
  for (std::size_t i = 0; i < measurements.pairs.size(); ++i) {
    const PairFigures& pair = measurements.pairs[i];
    const int crossing = crosses_hosts(measurements, pair.src, pair.dst) ? 1 : 0;
    bandwidths[crossing].push_back(pair.bandwidth_gbps);
    latencies[crossing].push_back(pair.latency_us);
    members[crossing].push_back(i);
  }
  judging.pairs.resize(measurements.pairs.size());
  for (int crossing = 0; crossing < 2; ++crossing) {
    for (std::size_t k = 0; k < members[crossing].size(); ++k) {
      const PairFigures& pair = measurements.pairs[members[crossing][k]];
      PairJudgement& judged = judging.pairs[members[crossing][k]];
      judged.pair = &pair;
      judged.crossing = crossing == 1;
      judged.bandwidth.first = deviation_of(
          pair.bandwidth_gbps, pair.bandwidth_spread,
          reference_without(bandwidths[crossing], k, &bandwidth_band), bandwidth_rule, factor);
      // Flagged against the link peak and not against the other pairs: that reference judges it,
      // and its recheck too.
      const FigureRule* pair_rule = &bandwidth_rule;
      if (link_peak_gbps > 0 && !judged.bandwidth.first.flagged) {
        const Deviation absolute = deviation_of(pair.bandwidth_gbps, pair.bandwidth_spread,
                                                Reference{link_peak_gbps, 0, 1}, peak_rule, factor);
        if (absolute.flagged) {
          judged.bandwidth.first = absolute;
          judged.against_link_peak = true;
          pair_rule = &peak_rule;
        }
      }
      judged.latency.first = deviation_of(pair.latency_us, pair.latency_spread,
                                          reference_without(latencies[crossing], k, &latency_band),
                                          latency_rule, factor);
      const PairFigures* again =
          use_rechecks ? find_in(measurements.rechecks.pairs, pair.src, pair.dst) : nullptr;
      if (!again) continue;
      judged.bandwidth.recheck =
          recheck_of(judged.bandwidth.first, again->bandwidth_gbps, *pair_rule, factor);
      judged.latency.recheck =
          recheck_of(judged.latency.first, again->latency_us, latency_rule, factor);
    }
  }
}

// The rule's figures; host lateness is compared among ranks of one host, so each host is
// numbered (a rank without an identity is on host 0 with the others that lack one).
std::vector<stats::RankArrival> rank_arrivals(const Measurements& measurements,
                                              const std::vector<ArrivalFigures>& arrivals) {
  std::vector<std::string> hosts;
  std::vector<stats::RankArrival> ranks;
  for (const ArrivalFigures& arrival : arrivals) {
    const RankIdentity* identity = identity_of(measurements, arrival.rank);
    const std::string host = identity ? identity->host : "";
    auto known = std::find(hosts.begin(), hosts.end(), host);
    if (known == hosts.end()) known = hosts.insert(hosts.end(), host);
    stats::RankArrival rank = arrival;
    rank.host = static_cast<int>(known - hosts.begin());
    ranks.push_back(rank);
  }
  return ranks;
}

// Every rank measured the same ops; the median keeps one odd figure out.
double op_time_us(const std::vector<ArrivalFigures>& arrivals) {
  std::vector<double> op_times_us;
  for (const ArrivalFigures& arrival : arrivals) op_times_us.push_back(arrival.op_time_us);
  return stats::median(op_times_us);
}

void judge_arrivals(Judging& judging, bool use_rechecks) {
  const std::vector<ArrivalFigures>& arrivals = judging.measurements.arrivals;
  if (arrivals.empty()) return;
  // Indexed by position in the list, not by rank: a rank without an arrival is no rank on time.
  const stats::ArrivalJudgement judgement =
      stats::judge_arrivals(rank_arrivals(judging.measurements, arrivals), op_time_us(arrivals),
                            judging.thresholds.arrival_rule());
  // Pointers into it outlive this call: the measurements' own list, or an empty one.
  static const std::vector<ArrivalFigures> kNone;
  const std::vector<ArrivalFigures>& again =
      use_rechecks ? judging.measurements.rechecks.arrivals : kNone;
  const stats::ArrivalJudgement again_judgement =
      again.empty() ? stats::ArrivalJudgement{}
                    : stats::judge_arrivals(rank_arrivals(judging.measurements, again),
                                            op_time_us(again), judging.thresholds.arrival_rule());
  for (std::size_t i = 0; i < arrivals.size(); ++i) {
    ArrivalJudging judged;
    judged.rank = arrivals[i].rank;
    judged.arrival = &arrivals[i];
    judged.first = judgement.ranks.at(i);
    judged.recheck = find_rank(again, judged.rank);
    if (judged.recheck) {
      judged.late_again = beyond_limits(*judged.recheck, judged.first);
      judged.again = again_judgement.ranks.at(judged.recheck - again.data());
    }
    judging.arrivals.push_back(judged);
  }
}

}  // namespace

FigureRule rule_of(FigureKind kind, const Thresholds& thresholds) {
  switch (kind) {
    case FigureKind::copy:
      return {true, thresholds.copy_spread_floor, thresholds.bandwidth_effect_ratio};
    case FigureKind::compute:
      return {true, thresholds.compute_spread_floor, thresholds.bandwidth_effect_ratio};
    case FigureKind::pair_bandwidth:
      return {true, thresholds.bandwidth_spread_floor, thresholds.bandwidth_effect_ratio};
    case FigureKind::pair_latency:
      return {false, thresholds.latency_spread_floor, thresholds.latency_effect_ratio};
  }
  return {};
}

Deviation deviation_of(double figure, double own_spread, const Reference& others,
                       const FigureRule& rule, double spread_factor) {
  Deviation deviation;
  deviation.figure = figure;
  // Not measured, or nothing to compare with: no judgement.
  if (figure <= 0 || others.median <= 0) return deviation;
  deviation.reference = others.median;
  deviation.log_spread = std::max({others.log_spread, own_spread, rule.spread_floor});
  return recheck_of(deviation, figure, rule, spread_factor);
}

Deviation recheck_of(const Deviation& first, double figure, const FigureRule& rule,
                     double spread_factor) {
  Deviation deviation = first;
  deviation.figure = figure;
  deviation.spreads = 0;
  deviation.flagged = false;
  if (first.reference <= 0) return deviation;
  // A figure that reads 0 on its recheck (it did not come) is as bad as a figure can be.
  const double log_ratio = std::log(std::max(figure, 1e-300) / first.reference);
  deviation.spreads = (rule.lower_is_worse ? -log_ratio : log_ratio) / first.log_spread;
  if (deviation.spreads == 0) deviation.spreads = 0;  // -0 would read "-0.0 spreads"
  const double ratio = deviation.ratio();
  const bool beyond_effect =
      rule.lower_is_worse ? ratio < rule.effect_ratio : ratio > rule.effect_ratio;
  deviation.flagged = deviation.spreads > spread_factor && beyond_effect;
  return deviation;
}

const JudgedFigure& PairJudgement::worst() const {
  if (bandwidth.suspect() != latency.suspect()) return bandwidth.suspect() ? bandwidth : latency;
  return latency.latest().spreads > bandwidth.latest().spreads ? latency : bandwidth;
}

Lateness lateness_of(const ArrivalFigures& arrival, const stats::RankArrivalJudgement& limits) {
  const bool host_only = arrival.gpu_lateness_us <= limits.limit_us && arrival.host_known &&
                         limits.host_limit_us > 0 &&
                         arrival.host_lateness_us > limits.host_limit_us;
  if (host_only) return {arrival.host_lateness_us, limits.host_limit_us};
  return {arrival.gpu_lateness_us, limits.limit_us};
}

bool beyond_limits(const ArrivalFigures& arrival, const stats::RankArrivalJudgement& limits) {
  const bool host_late = arrival.host_known && limits.host_limit_us > 0 &&
                         arrival.host_lateness_us > limits.host_limit_us;
  return arrival.gpu_lateness_us > limits.limit_us || host_late;
}

Judging judging_of(const Measurements& measurements, const Thresholds& thresholds,
                   bool use_rechecks) {
  Judging judging{measurements, thresholds, expectations_of(measurements), {}, {}, {}};
  judge_gpus(judging, use_rechecks);
  judge_pairs(judging, use_rechecks);
  judge_arrivals(judging, use_rechecks);
  return judging;
}

const GpuJudgement* gpu_judgement(const Judging& judging, int rank) {
  for (const GpuJudgement& gpu : judging.gpus) {
    if (gpu.gpu->rank == rank) return &gpu;
  }
  return nullptr;
}

}  // namespace collbench::diagnose
