// judge() and to_recheck(): the rules in order, then the suspects with the root cause first.
#include "verdict/verdict.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <tuple>

#include "verdict/verdict_rules.hpp"

namespace collbench::diagnose {
namespace {

constexpr SuspectKind kKinds[] = {SuspectKind::missing_rank,  SuspectKind::slow_gpu,
                                  SuspectKind::starved_host,  SuspectKind::slow_node,
                                  SuspectKind::link_endpoint, SuspectKind::slow_link,
                                  SuspectKind::straggler};

// A missing rank's other figures (a copy that never ran, a launch that never came) say nothing
// more about it.
void drop_missing_ranks(const Judging& judging, std::vector<Suspect>& suspects) {
  for (const MissingRank& missing : judging.measurements.missing) {
    suspects.erase(std::remove_if(suspects.begin(), suspects.end(),
                                  [&](const Suspect& suspect) {
                                    return suspect.kind != SuspectKind::missing_rank &&
                                           suspect.rank == missing.rank;
                                  }),
                   suspects.end());
  }
}

template <typename Suspects>
void append(std::vector<Suspect>& suspects, Suspects&& more) {
  for (Suspect& suspect : more) suspects.push_back(std::move(suspect));
}

bool is_missing(const Measurements& measurements, int rank) {
  return std::any_of(measurements.missing.begin(), measurements.missing.end(),
                     [&](const MissingRank& missing) { return missing.rank == rank; });
}

// The suspects of ranks (the copies of `loaded` left to their links), then those of links, which
// begin at *first_link.
std::vector<Suspect> rank_and_link_suspects(const Judging& judging, const std::vector<int>& loaded,
                                            std::size_t* first_link = nullptr) {
  std::vector<Suspect> suspects = missing_rank_suspects(judging);
  append(suspects, rank_suspects(judging, loaded));
  drop_missing_ranks(judging, suspects);
  fold_slow_gpus(judging, suspects);
  if (first_link) *first_link = suspects.size();
  // Pairs are named only where no rank at their ends is already named.
  link_suspects(judging, suspects);
  return suspects;
}

bool named_in(const std::vector<Suspect>& suspects, std::size_t begin, std::size_t end, int rank) {
  return std::any_of(suspects.begin() + begin, suspects.begin() + end, [&](const Suspect& suspect) {
    return suspect.kind != SuspectKind::straggler && names_rank(suspect, rank);
  });
}

// The ranks whose slow copy is the links' traffic: of those whose copy may be
// (copies_beside_slow_pairs), the ones a link suspect names when their copies are left to the
// links, and nothing of their own. A rank whose slow pairs are all another rank's (a loaded
// sender's, a busy GPU's) is not named by its links: its copy is its own (degraded memory,
// another program's memory-heavy work), a slow GPU.
std::vector<int> copies_slowed_by_links(const Judging& judging) {
  const std::vector<int> held = copies_beside_slow_pairs(judging);
  if (held.empty()) return held;
  std::size_t first_link = 0;
  const std::vector<Suspect> suspects = rank_and_link_suspects(judging, held, &first_link);
  std::vector<int> loaded;
  for (int rank : held) {
    if (!named_in(suspects, 0, first_link, rank) &&
        named_in(suspects, first_link, suspects.size(), rank)) {
      loaded.push_back(rank);
    }
  }
  return loaded;
}

}  // namespace

const char* kind_name(SuspectKind kind) {
  switch (kind) {
    case SuspectKind::missing_rank:
      return "missing_rank";
    case SuspectKind::slow_gpu:
      return "slow_gpu";
    case SuspectKind::starved_host:
      return "starved_host";
    case SuspectKind::slow_node:
      return "slow_node";
    case SuspectKind::link_endpoint:
      return "link_endpoint";
    case SuspectKind::slow_link:
      return "slow_link";
    case SuspectKind::straggler:
      return "straggler";
  }
  return "unknown";
}

std::optional<SuspectKind> kind_from_name(const std::string& name) {
  for (SuspectKind kind : kKinds) {
    if (name == kind_name(kind)) return kind;
  }
  return std::nullopt;
}

std::string kind_names() {
  std::vector<std::string> names;
  for (SuspectKind kind : kKinds) names.push_back(kind_name(kind));
  return fmt::format("{}", fmt::join(names, ", "));
}

stats::ArrivalRule Thresholds::arrival_rule() const {
  stats::ArrivalRule rule;
  rule.floor_us = arrival_floor_us;
  rule.op_share = arrival_op_share;
  rule.spread_factor = spread_factor;
  rule.host_share = arrival_host_share;
  return rule;
}

const std::vector<ThresholdSetting>& threshold_settings() {
  static const std::vector<ThresholdSetting> settings = {
      {"spread_factor", &Thresholds::spread_factor,
       "flag a figure only beyond this many spreads of its kind (log scale), and a late rank "
       "beyond this many spreads of the others' lateness",
       100},
      {"bandwidth_effect_ratio", &Thresholds::bandwidth_effect_ratio,
       "and a copy, compute or pair bandwidth only below this share of the median of the others",
       1},
      {"latency_effect_ratio", &Thresholds::latency_effect_ratio,
       "and a pair latency only above this multiple of the median of the others",
       std::numeric_limits<double>::infinity()},
      {"copy_spread_floor", &Thresholds::copy_spread_floor,
       "the least spread granted to copies (relative)", 1},
      {"compute_spread_floor", &Thresholds::compute_spread_floor,
       "the least spread granted to compute throughputs (relative)", 1},
      {"bandwidth_spread_floor", &Thresholds::bandwidth_spread_floor,
       "the least spread granted to pair bandwidths (relative)", 1},
      {"latency_spread_floor", &Thresholds::latency_spread_floor,
       "the least spread granted to pair latencies (relative)", 1},
      {"slow_ratio", &Thresholds::slow_ratio,
       "a collective is slow below this share of its ring bound", 1},
      {"link_peak_share", &Thresholds::link_peak_share,
       "with --link-peak, a pair bandwidth is slow below this share of that link peak", 1},
      {"arrival_floor_us", &Thresholds::arrival_floor_us,
       "a rank is late only beyond this many microseconds", 1e9},
      {"arrival_op_share", &Thresholds::arrival_op_share,
       "and only beyond this share of the op time", 1},
      {"arrival_host_share", &Thresholds::arrival_host_share,
       "a late rank's host is the cause when its host lateness is this share of its lateness", 1},
  };
  return settings;
}

bool group_is_slow(const GroupFigures& group, const Thresholds& thresholds) {
  return group.expected_busbw_gbps > 0 &&
         group.busbw_gbps < thresholds.slow_ratio * group.expected_busbw_gbps;
}

RecheckRequest to_recheck(const Measurements& measurements, const Thresholds& thresholds) {
  const Judging judging = judging_of(measurements, thresholds, false);
  RecheckRequest request;
  for (const GpuJudgement& gpu : judging.gpus) {
    const int rank = gpu.gpu->rank;
    // A recheck measures both, so that either can be told from the other on the second look.
    const bool flagged = gpu.copy.first.flagged || gpu.compute.first.flagged;
    if (flagged && !is_missing(measurements, rank)) request.gpus.push_back(rank);
  }
  for (const PairJudgement& pair : judging.pairs) {
    const int src = pair.pair->src;
    const int dst = pair.pair->dst;
    if (!(pair.bandwidth.first.flagged || pair.latency.first.flagged)) continue;
    if (!is_missing(measurements, src) && !is_missing(measurements, dst)) {
      request.pairs.emplace_back(src, dst);
    }
  }
  request.arrivals = std::any_of(judging.arrivals.begin(), judging.arrivals.end(),
                                 [](const ArrivalJudging& arrival) { return arrival.first.late; });
  return request;
}

Verdict judge(const Measurements& measurements, const Thresholds& thresholds) {
  const Judging judging = judging_of(measurements, thresholds, true);
  const std::vector<int> loaded = copies_slowed_by_links(judging);
  std::vector<Suspect> suspects = rank_and_link_suspects(judging, loaded);
  add_link_traffic_copies(judging, loaded, suspects);
  explain_slow_groups(judging, suspects);

  std::stable_sort(suspects.begin(), suspects.end(), [](const Suspect& a, const Suspect& b) {
    return std::make_tuple(a.kind, -a.spreads, a.rank) <
           std::make_tuple(b.kind, -b.spreads, b.rank);
  });
  Verdict verdict;
  verdict.suspects = std::move(suspects);
  verdict.cleared = cleared_figures(judging);
  verdict.margins = margins_of(judging);
  verdict.expectations = judging.expectations;
  verdict.thresholds = thresholds;
  return verdict;
}

}  // namespace collbench::diagnose
