// The margins (how close each kind of figure came to being flagged) and the figures a recheck
// cleared.
#include <fmt/format.h>

#include <cmath>

#include "verdict/verdict_rules.hpp"

namespace collbench::diagnose {
namespace {

// How far along the way to being flagged a figure is, 1 at the limit: a figure is flagged only
// beyond both limits, so the nearer of the two is how close it came.
double closeness(double spreads, double spread_factor, double ratio, double effect_ratio) {
  return std::min(spreads / spread_factor, std::log(ratio) / std::log(effect_ratio));
}

struct Candidate {
  Margin margin;
  double closeness = 0;
};

void keep_closest(std::optional<Candidate>& worst, Candidate candidate) {
  if (!worst || candidate.closeness > worst->closeness) worst = std::move(candidate);
}

Candidate figure_candidate(std::string name, const Deviation& deviation, const FigureRule& rule,
                           const Thresholds& thresholds) {
  const Margin margin{std::move(name), deviation.figure, deviation.reference, deviation.ratio(),
                      deviation.spreads};
  return {margin, closeness(deviation.spreads, thresholds.spread_factor, deviation.ratio(),
                            rule.effect_ratio)};
}

std::optional<Margin> margin_of(const std::optional<Candidate>& worst) {
  if (!worst) return std::nullopt;
  return worst->margin;
}

std::optional<Margin> arrival_margin(const Judging& judging) {
  std::optional<Candidate> worst;
  for (const ArrivalJudging& arrival : judging.arrivals) {
    // The latest measurement, judged by the rule on its own.
    const stats::RankArrivalJudgement& judged = arrival.again ? *arrival.again : arrival.first;
    const Lateness lateness =
        lateness_of(arrival.recheck ? *arrival.recheck : *arrival.arrival, judged);
    if (lateness.limit_us <= 0) continue;
    const double ratio = lateness.figure_us / lateness.limit_us;
    keep_closest(worst, {{fmt::format("rank {}", arrival.rank), lateness.figure_us,
                          lateness.limit_us, ratio, judged.margin_spreads},
                         ratio});
  }
  return margin_of(worst);
}

std::string cleared_line(const std::string& what, const char* unit, const char* format,
                         const Deviation& first, const Deviation& recheck) {
  return fmt::format("{} {} {} against {} ({}) cleared on recheck: {} {}", what,
                     fmt::format(fmt::runtime(format), first.figure), unit,
                     fmt::format(fmt::runtime(format), first.reference),
                     spreads_text(first.spreads), fmt::format(fmt::runtime(format), recheck.figure),
                     unit);
}

void add_cleared(std::vector<ClearedFigure>& cleared, const char* kind, std::vector<int> ranks,
                 const JudgedFigure& judged, std::string line) {
  if (!judged.cleared()) return;
  cleared.push_back({kind, std::move(ranks), judged.first.figure, judged.first.reference,
                     judged.first.spreads, judged.recheck->figure, std::move(line)});
}

}  // namespace

Margins margins_of(const Judging& judging) {
  const Thresholds& thresholds = judging.thresholds;
  std::optional<Candidate> copy, compute, bandwidth, latency, collective;
  for (const GpuJudgement& gpu : judging.gpus) {
    const std::string name = fmt::format("rank {}", gpu.gpu->rank);
    if (gpu.copy.latest().reference > 0) {
      keep_closest(copy, figure_candidate(name, gpu.copy.latest(),
                                          rule_of(FigureKind::copy, thresholds), thresholds));
    }
    if (gpu.compute.latest().reference > 0) {
      keep_closest(compute, figure_candidate(name, gpu.compute.latest(),
                                             rule_of(FigureKind::compute, thresholds), thresholds));
    }
  }
  for (const PairJudgement& pair : judging.pairs) {
    const std::string name = fmt::format("{}->{}", pair.pair->src, pair.pair->dst);
    if (pair.bandwidth.latest().reference > 0) {
      keep_closest(bandwidth,
                   figure_candidate(name, pair.bandwidth.latest(),
                                    rule_of(FigureKind::pair_bandwidth, thresholds), thresholds));
    }
    if (pair.latency.latest().reference > 0) {
      keep_closest(latency,
                   figure_candidate(name, pair.latency.latest(),
                                    rule_of(FigureKind::pair_latency, thresholds), thresholds));
    }
  }
  for (const GroupFigures& group : judging.measurements.groups) {
    const double expected_gbps = expected_busbw_gbps(judging, group);
    if (expected_gbps <= 0) continue;
    const double ratio = group.busbw_gbps / expected_gbps;
    keep_closest(collective, {{fmt::format("{} on ranks {}", group.op, rank_list(group.ranks)),
                               group.busbw_gbps, expected_gbps, ratio, std::nullopt},
                              std::log(ratio) / std::log(thresholds.slow_ratio)});
  }
  return {margin_of(copy),    margin_of(compute),    margin_of(bandwidth),
          margin_of(latency), margin_of(collective), arrival_margin(judging)};
}

std::vector<ClearedFigure> cleared_figures(const Judging& judging) {
  std::vector<ClearedFigure> cleared;
  for (const GpuJudgement& gpu : judging.gpus) {
    const int rank = gpu.gpu->rank;
    if (gpu.copy.cleared()) {
      add_cleared(cleared, "copy", {rank}, gpu.copy,
                  cleared_line(fmt::format("rank {} copy", rank), "GB/s", "{:.0f}", gpu.copy.first,
                               *gpu.copy.recheck));
    }
    if (gpu.compute.cleared()) {
      add_cleared(cleared, "compute", {rank}, gpu.compute,
                  cleared_line(fmt::format("rank {} compute", rank), "TFLOP/s", "{:.1f}",
                               gpu.compute.first, *gpu.compute.recheck));
    }
  }
  for (const PairJudgement& pair : judging.pairs) {
    const int src = pair.pair->src;
    const int dst = pair.pair->dst;
    if (pair.bandwidth.cleared()) {
      add_cleared(cleared, "pair_bandwidth", {src, dst}, pair.bandwidth,
                  cleared_line(fmt::format("{}->{}", src, dst), "GB/s", "{:.0f}",
                               pair.bandwidth.first, *pair.bandwidth.recheck));
    }
    if (pair.latency.cleared()) {
      add_cleared(cleared, "pair_latency", {src, dst}, pair.latency,
                  cleared_line(fmt::format("{}->{} latency", src, dst), "us", "{:.1f}",
                               pair.latency.first, *pair.latency.recheck));
    }
  }
  for (const ArrivalJudging& arrival : judging.arrivals) {
    if (!arrival.cleared()) continue;
    const Lateness first = lateness_of(*arrival.arrival, arrival.first);
    const double again_us = lateness_of(*arrival.recheck, arrival.first).figure_us;
    ClearedFigure figure{"arrival",
                         {arrival.rank},
                         first.figure_us,
                         first.limit_us,
                         arrival.first.margin_spreads,
                         again_us,
                         ""};
    figure.line = fmt::format(
        "rank {} arrived {:.0f} us late against a limit of {:.0f} us ({} past it) cleared on "
        "recheck: {:.0f} us",
        arrival.rank, first.figure_us, first.limit_us, spreads_text(arrival.first.margin_spreads),
        again_us);
    cleared.push_back(std::move(figure));
  }
  return cleared;
}

}  // namespace collbench::diagnose
