// The rules about links: slow pairs are the evidence of a rank already named, else grouped from
// the top, so that one cause is one suspect: a host's crossings (slow_node), one side of one GPU
// (link_endpoint, two sides sharing their slowest pair merged), then single links (slow_link).
// A GPU whose copy the links' traffic slowed is named by its links, with its copy as evidence.
#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "verdict/verdict_rules.hpp"

namespace collbench::diagnose {
namespace {

// NVLink error counters above zero on `rank`'s GPU back a slow link up.
void add_nvlink_evidence(const Judging& judging, int rank, Suspect& suspect) {
  const GpuJudgement* judged = gpu_judgement(judging, rank);
  if (!judged) return;
  const GpuFigures& gpu = *judged->gpu;
  const unsigned long long replay = gpu.nvlink_replay.value_or(0);
  const unsigned long long recovery = gpu.nvlink_recovery.value_or(0);
  const unsigned long long crc = gpu.nvlink_crc.value_or(0);
  if (replay + recovery + crc == 0) return;
  suspect.evidence.push_back(fmt::format("rank {} NVLink errors: {} replay, {} recovery, {} CRC",
                                         rank, replay, recovery, crc));
}

double spreads_of(const PairJudgement* pair) {
  return pair->worst().latest().spreads;
}

const PairJudgement* slowest_of(const std::vector<const PairJudgement*>& pairs) {
  const PairJudgement* slowest = nullptr;
  for (const PairJudgement* pair : pairs) {
    if (pair->slow() && (!slowest || spreads_of(pair) > spreads_of(slowest))) slowest = pair;
  }
  return slowest;
}

bool any_unconfirmed(const std::vector<const PairJudgement*>& pairs) {
  return std::any_of(pairs.begin(), pairs.end(), [](const PairJudgement* pair) {
    return pair->slow() && pair->worst().unconfirmed();
  });
}

// "6 of 7 pairs slow (the slowest 2->0 185 GB/s against 370, 0.50×)", marked when unconfirmed.
std::string slow_pairs_text(const std::vector<const PairJudgement*>& pairs) {
  const auto slow = std::count_if(pairs.begin(), pairs.end(),
                                  [](const PairJudgement* pair) { return pair->slow(); });
  return fmt::format("{} of {} pairs slow (the slowest {}{})", slow, pairs.size(),
                     pair_figure_text(*slowest_of(pairs)),
                     any_unconfirmed(pairs) ? "; unconfirmed, no recheck" : "");
}

// The slow pairs of each rank-level suspect, as one line of its evidence.
void add_pair_evidence(const Judging& judging, std::vector<Suspect>& suspects) {
  for (Suspect& suspect : suspects) {
    if (suspect.kind == SuspectKind::straggler) continue;
    std::vector<const PairJudgement*> touching;
    for (const PairJudgement& pair : judging.pairs) {
      const bool touches = std::any_of(suspect.ranks.begin(), suspect.ranks.end(),
                                       [&](int rank) { return pair.involves(rank); });
      if (touches) touching.push_back(&pair);
    }
    if (!slowest_of(touching)) continue;
    suspect.evidence.push_back(fmt::format("its pairs: {}", slow_pairs_text(touching)));
  }
}

enum class Side { send, receive };

// One side of one rank within one class of pairs.
struct Endpoint {
  int rank = 0;
  Side side = Side::send;
  bool crossing = false;
  std::vector<const PairJudgement*> pairs;  // every pair of the pool at this end
};

std::vector<Endpoint> endpoints_of(const SlowPairs& slow_pairs) {
  std::vector<Endpoint> endpoints;
  for (const PairJudgement* pair : slow_pairs.pool) {
    for (Side side : {Side::send, Side::receive}) {
      const int rank = side == Side::send ? pair->pair->src : pair->pair->dst;
      auto endpoint = std::find_if(endpoints.begin(), endpoints.end(), [&](const Endpoint& e) {
        return e.rank == rank && e.side == side && e.crossing == pair->crossing;
      });
      if (endpoint == endpoints.end()) {
        endpoints.push_back({rank, side, pair->crossing, {}});
        endpoint = endpoints.end() - 1;
      }
      endpoint->pairs.push_back(pair);
    }
  }
  return endpoints;
}

// Greedy, most telling first: an endpoint whose pairs not yet explained are still at least 2
// and at least half of its pairs, by that share, then count, then spreads. Two ranks slow in
// both directions make a third rank's two receives from them slow; those are theirs already.
std::vector<Endpoint> slow_endpoints(SlowPairs& slow_pairs) {
  std::vector<Endpoint> candidates = endpoints_of(slow_pairs);
  std::vector<Endpoint> chosen;
  for (;;) {
    auto best = candidates.end();
    std::tuple<double, long, double, int> best_key{};
    for (auto endpoint = candidates.begin(); endpoint != candidates.end(); ++endpoint) {
      const auto& pairs = endpoint->pairs;
      const long slow = std::count_if(pairs.begin(), pairs.end(), [&](const PairJudgement* pair) {
        return slow_pairs.uncovered_slow(pair);
      });
      if (slow < 2 || 2 * slow < static_cast<long>(pairs.size())) continue;
      const std::tuple<double, long, double, int> key{double(slow) / double(pairs.size()), slow,
                                                      spreads_of(slowest_of(pairs)),
                                                      -endpoint->rank};
      if (best == candidates.end() || key > best_key) {
        best = endpoint;
        best_key = key;
      }
    }
    if (best == candidates.end()) return chosen;
    for (const PairJudgement* pair : best->pairs) {
      if (pair->slow()) slow_pairs.covered.insert(pair);
    }
    chosen.push_back(*best);
    candidates.erase(best);
  }
}

std::string side_text(const Endpoint& endpoint) {
  return fmt::format("rank {} {}{}", endpoint.rank,
                     endpoint.side == Side::send ? "sending" : "receiving",
                     endpoint.crossing ? " across hosts" : "");
}

Suspect endpoint_suspect(const Judging& judging, const Endpoint& endpoint) {
  const PairJudgement* slowest = slowest_of(endpoint.pairs);
  Suspect suspect =
      rank_suspect(judging, SuspectKind::link_endpoint, endpoint.rank, slowest->worst().latest());
  suspect.direction = endpoint.side == Side::send ? "send" : "receive";
  suspect.confirmed = !any_unconfirmed(endpoint.pairs);
  suspect.evidence.push_back(
      fmt::format("{}: {}", side_text(endpoint), slow_pairs_text(endpoint.pairs)));
  return suspect;
}

// Both sides of one rank in one class: one suspect.
Suspect both_sides_suspect(const Judging& judging, const Endpoint& sending,
                           const Endpoint& receiving) {
  Endpoint both = sending;
  both.pairs.insert(both.pairs.end(), receiving.pairs.begin(), receiving.pairs.end());
  Suspect suspect = endpoint_suspect(judging, both);
  suspect.direction = "both";
  suspect.evidence = {fmt::format("rank {}{}, both directions: {}", sending.rank,
                                  sending.crossing ? " across hosts" : "",
                                  slow_pairs_text(both.pairs))};
  return suspect;
}

// The sending side of a and the receiving side of b, both slowest at a->b: one cause between
// them (a transfer a->b that fills both), named once.
bool share_slowest_pair(const Endpoint& sending, const Endpoint& receiving) {
  const PairJudgement* slowest = slowest_of(sending.pairs);
  return sending.side == Side::send && receiving.side == Side::receive &&
         slowest == slowest_of(receiving.pairs) && slowest->pair->src == sending.rank &&
         slowest->pair->dst == receiving.rank;
}

Suspect merged_suspect(const Judging& judging, const Endpoint& sending, const Endpoint& receiving) {
  Suspect suspect = endpoint_suspect(judging, sending);
  const Suspect other = endpoint_suspect(judging, receiving);
  suspect.peer = receiving.rank;
  suspect.ranks = {sending.rank, receiving.rank};
  suspect.direction = fmt::format("{}->{}", sending.rank, receiving.rank);
  suspect.confirmed = suspect.confirmed && other.confirmed;
  suspect.evidence.push_back(other.evidence.front());
  return suspect;
}

std::vector<Suspect> endpoint_suspects(const Judging& judging, std::vector<Endpoint> endpoints) {
  std::vector<Suspect> suspects;
  while (!endpoints.empty()) {
    const Endpoint first = endpoints.front();
    endpoints.erase(endpoints.begin());
    // Its other side first, else a side that shares its slowest pair.
    auto partner = std::find_if(endpoints.begin(), endpoints.end(), [&](const Endpoint& e) {
      return e.rank == first.rank && e.crossing == first.crossing;
    });
    if (partner == endpoints.end()) {
      partner = std::find_if(endpoints.begin(), endpoints.end(), [&](const Endpoint& e) {
        return share_slowest_pair(first, e) || share_slowest_pair(e, first);
      });
    }
    if (partner == endpoints.end()) {
      suspects.push_back(endpoint_suspect(judging, first));
    } else if (partner->rank == first.rank) {
      const bool first_sends = first.side == Side::send;
      suspects.push_back(both_sides_suspect(judging, first_sends ? first : *partner,
                                            first_sends ? *partner : first));
    } else {
      const bool first_sends = first.side == Side::send;
      suspects.push_back(
          merged_suspect(judging, first_sends ? first : *partner, first_sends ? *partner : first));
    }
    if (partner != endpoints.end()) endpoints.erase(partner);
    for (int rank : suspects.back().ranks) add_nvlink_evidence(judging, rank, suspects.back());
  }
  return suspects;
}

// Slow pairs no other suspect explains: one slow_link per pair of ranks, both directions in one.
std::vector<Suspect> single_link_suspects(const Judging& judging, const SlowPairs& slow_pairs) {
  std::vector<Suspect> links;
  for (const PairJudgement* pair : slow_pairs.pool) {
    if (!slow_pairs.uncovered_slow(pair)) continue;
    const int low = std::min(pair->pair->src, pair->pair->dst);
    const int high = std::max(pair->pair->src, pair->pair->dst);
    auto link = std::find_if(links.begin(), links.end(), [&](const Suspect& suspect) {
      return suspect.rank == low && suspect.peer == high;
    });
    if (link == links.end()) {
      links.push_back(rank_suspect(judging, SuspectKind::slow_link, low, {}));
      link = links.end() - 1;
      link->peer = high;
      link->ranks = {low, high};
    }
    weigh(*link, pair->worst().latest());
    for (const JudgedFigure* figure : {&pair->bandwidth, &pair->latency}) {
      if (figure->suspect()) note_confirmation(*link, *figure);
    }
    for (std::string& line : pair_evidence(*pair)) link->evidence.push_back(std::move(line));
  }
  for (Suspect& link : links) {
    add_nvlink_evidence(judging, link.rank, link);
    add_nvlink_evidence(judging, *link.peer, link);
  }
  return links;
}

// The first suspect naming `rank` for a cause of its own (a straggler's figures are not).
Suspect* naming(std::vector<Suspect>& suspects, int rank) {
  for (Suspect& suspect : suspects) {
    if (suspect.kind != SuspectKind::straggler && names_rank(suspect, rank)) return &suspect;
  }
  return nullptr;
}

}  // namespace

void add_link_traffic_copies(const Judging& judging, const std::vector<int>& loaded,
                             std::vector<Suspect>& suspects) {
  for (int rank : loaded) {
    Suspect* suspect = naming(suspects, rank);
    // A slow pair of it explained at its other end (that side's endpoint) explains its traffic.
    for (const PairJudgement& pair : judging.pairs) {
      if (suspect) break;
      if (!pair.involves(rank) || !pair.bandwidth.suspect()) continue;
      suspect = naming(suspects, pair.pair->src == rank ? pair.pair->dst : pair.pair->src);
    }
    if (!suspect) continue;
    suspect->evidence.push_back(
        link_traffic_copy_evidence(rank, gpu_judgement(judging, rank)->copy));
  }
}

void link_suspects(const Judging& judging, std::vector<Suspect>& suspects) {
  // Every suspect so far names ranks whose own figures condemn them; a straggler's do not.
  std::vector<int> named;
  for (const Suspect& suspect : suspects) {
    if (suspect.kind == SuspectKind::straggler) continue;
    named.insert(named.end(), suspect.ranks.begin(), suspect.ranks.end());
  }
  const auto is_named = [&](int rank) {
    return std::find(named.begin(), named.end(), rank) != named.end();
  };
  add_pair_evidence(judging, suspects);
  SlowPairs slow_pairs;
  for (const PairJudgement& pair : judging.pairs) {
    if (!is_named(pair.pair->src) && !is_named(pair.pair->dst)) slow_pairs.pool.push_back(&pair);
  }
  fold_slow_crossings(judging, slow_pairs, suspects);
  for (Suspect& suspect : endpoint_suspects(judging, slow_endpoints(slow_pairs))) {
    suspects.push_back(std::move(suspect));
  }
  for (Suspect& suspect : single_link_suspects(judging, slow_pairs)) {
    suspects.push_back(std::move(suspect));
  }
}

}  // namespace collbench::diagnose
