// The suspects' common parts and the evidence text the verdict's rules share.
#include <fmt/format.h>

#include <algorithm>

#include "verdict/verdict_rules.hpp"

namespace collbench::diagnose {
namespace {

// "(0.50×, 34.7 spreads; recheck 750)", the recheck in the figure's own format.
std::string judgement_text(const JudgedFigure& judged, const char* figure_format) {
  std::string recheck = "unconfirmed, no recheck";
  if (judged.recheck) {
    recheck = "recheck " + fmt::format(fmt::runtime(figure_format), judged.recheck->figure);
  }
  return fmt::format("({}, {}; {})", ratio_text(judged.first.ratio()),
                     spreads_text(judged.first.spreads), recheck);
}

std::string pair_name(const PairJudgement& pair) {
  return fmt::format("{}->{}{}", pair.pair->src, pair.pair->dst,
                     pair.crossing ? " across hosts" : "");
}

}  // namespace

Suspect rank_suspect(const Judging& judging, SuspectKind kind, int rank,
                     const Deviation& deviation) {
  Suspect suspect;
  suspect.kind = kind;
  suspect.rank = rank;
  suspect.ranks = {rank};
  if (const RankIdentity* identity = identity_of(judging.measurements, rank)) {
    suspect.host = identity->host;
    suspect.pci_bus_id = identity->pci_bus_id;
  }
  suspect.figure = deviation.figure;
  suspect.reference = deviation.reference;
  suspect.ratio = deviation.ratio();
  suspect.spreads = deviation.spreads;
  return suspect;
}

void weigh(Suspect& suspect, const Deviation& deviation) {
  if (deviation.spreads <= suspect.spreads && suspect.reference > 0) return;
  suspect.figure = deviation.figure;
  suspect.reference = deviation.reference;
  suspect.ratio = deviation.ratio();
  suspect.spreads = deviation.spreads;
}

bool names_rank(const Suspect& suspect, int rank) {
  return std::find(suspect.ranks.begin(), suspect.ranks.end(), rank) != suspect.ranks.end();
}

std::string copy_evidence(const JudgedFigure& copy) {
  return fmt::format("copy {:.0f} GB/s against {:.0f} {}", copy.first.figure, copy.first.reference,
                     judgement_text(copy, "{:.0f}"));
}

std::string compute_evidence(const JudgedFigure& compute) {
  return fmt::format("compute {:.1f} TFLOP/s against {:.1f} {}", compute.first.figure,
                     compute.first.reference, judgement_text(compute, "{:.1f}"));
}

std::string link_traffic_copy_evidence(int rank, const JudgedFigure& copy) {
  return fmt::format(
      "rank {}'s local copy {:.0f} GB/s, {} the others' ({}) while its compute is normal: its "
      "memory carries the links' traffic too",
      rank, copy.first.figure, ratio_text(copy.first.ratio()), spreads_text(copy.first.spreads));
}

std::vector<std::string> pair_evidence(const PairJudgement& pair) {
  std::vector<std::string> lines;
  if (pair.bandwidth.suspect()) {
    lines.push_back(
        fmt::format("{} {:.0f} GB/s against {}{:.0f} {}", pair_name(pair),
                    pair.bandwidth.first.figure, pair.against_link_peak ? "the link peak " : "",
                    pair.bandwidth.first.reference, judgement_text(pair.bandwidth, "{:.0f}")));
  }
  if (pair.latency.suspect()) {
    lines.push_back(fmt::format("{} latency {:.1f} us against {:.1f} {}", pair_name(pair),
                                pair.latency.first.figure, pair.latency.first.reference,
                                judgement_text(pair.latency, "{:.1f}")));
  }
  return lines;
}

std::string pair_figure_text(const PairJudgement& pair) {
  const JudgedFigure& worst = pair.worst();
  const bool latency = &worst == &pair.latency;
  const Deviation& latest = worst.latest();
  // A bandwidth judged against the healthy link peak (--link-peak) says so.
  const bool against_peak = !latency && pair.against_link_peak;
  return fmt::format(latency        ? "{} latency {:.1f} us against {:.1f}, {}"
                     : against_peak ? "{} {:.0f} GB/s against the link peak {:.0f}, {}"
                                    : "{} {:.0f} GB/s against {:.0f}, {}",
                     pair_name(pair), latest.figure, latest.reference, ratio_text(latest.ratio()));
}

void note_confirmation(Suspect& suspect, const JudgedFigure& figure) {
  if (figure.unconfirmed()) suspect.confirmed = false;
}

}  // namespace collbench::diagnose
