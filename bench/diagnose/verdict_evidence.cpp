// The readings and evidence text the verdict's rules share.
#include <fmt/format.h>

#include <algorithm>

#include "verdict_rules.hpp"

namespace collbench::diagnose {

double health(double ratio) {
  return ratio > 1 ? 1 / ratio : ratio;
}

Suspect rank_suspect(const Judging& judging, SuspectKind kind, int rank, const Reading& reading) {
  Suspect suspect;
  suspect.kind = kind;
  suspect.rank = rank;
  suspect.ranks = {rank};
  if (const RankIdentity* identity = identity_of(judging.measurements, rank)) {
    suspect.host = identity->host;
    suspect.pci_bus_id = identity->pci_bus_id;
  }
  suspect.figure = reading.figure;
  suspect.expectation = reading.expectation;
  suspect.ratio = reading.ratio();
  return suspect;
}

void weigh(Suspect& suspect, const Reading& reading) {
  if (health(reading.ratio()) >= health(suspect.ratio)) return;
  suspect.figure = reading.figure;
  suspect.expectation = reading.expectation;
  suspect.ratio = reading.ratio();
}

const Reading& PairReading::worst() const {
  return health(latency.ratio()) < health(bandwidth.ratio()) ? latency : bandwidth;
}

PairReading read_pair(const Judging& judging, const PairFigures& pair) {
  const bool crossing = crosses_hosts(judging.measurements, pair.src, pair.dst);
  const PairExpectation& best = judging.expectations.for_pair(crossing);
  PairReading reading;
  reading.bandwidth = {pair.bandwidth_gbps, best.bandwidth_gbps};
  reading.latency = {pair.latency_us, best.latency_us};
  const Thresholds& thresholds = judging.thresholds;
  reading.slow_bandwidth =
      reading.bandwidth.ratio() < thresholds.slow_ratio && best.bandwidth_gbps > 0;
  reading.slow_latency = reading.latency.ratio() > thresholds.latency_ratio;
  return reading;
}

std::vector<std::string> pair_evidence(const Judging& judging, const PairFigures& pair,
                                       const PairReading& reading) {
  const bool crossing = crosses_hosts(judging.measurements, pair.src, pair.dst);
  const char* best = crossing ? "the best cross-host pair's" : "the best pair's";
  std::vector<std::string> lines;
  if (reading.slow_bandwidth) {
    lines.push_back(fmt::format("{}->{} {:.0f} GB/s against {} {:.0f} ({})", pair.src, pair.dst,
                                pair.bandwidth_gbps, best, reading.bandwidth.expectation,
                                ratio_text(reading.bandwidth.ratio())));
  }
  if (reading.slow_latency) {
    lines.push_back(fmt::format("{}->{} latency {:.1f} us against {} {:.1f} ({})", pair.src,
                                pair.dst, pair.latency_us, best, reading.latency.expectation,
                                ratio_text(reading.latency.ratio())));
  }
  return lines;
}

std::optional<LeastSlowPair> every_pair_slow(
    const Judging& judging, const std::function<bool(const PairFigures&)>& group,
    const std::function<bool(const PairFigures&)>& elsewhere) {
  std::optional<LeastSlowPair> least;
  bool healthy_elsewhere = false;
  for (const PairFigures& pair : judging.measurements.pairs) {
    const PairReading reading = read_pair(judging, pair);
    if (elsewhere(pair)) healthy_elsewhere = healthy_elsewhere || !reading.slow();
    if (!group(pair)) continue;
    if (!reading.slow()) return std::nullopt;
    if (!least || health(reading.worst().ratio()) > health(least->reading.worst().ratio())) {
      least = LeastSlowPair{&pair, reading};
    }
  }
  if (!healthy_elsewhere) return std::nullopt;
  return least;
}

bool names_rank(const Suspect& suspect, int rank) {
  return std::find(suspect.ranks.begin(), suspect.ranks.end(), rank) != suspect.ranks.end();
}

}  // namespace collbench::diagnose
