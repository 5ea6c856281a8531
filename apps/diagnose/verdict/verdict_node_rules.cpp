// The rules about a host: every GPU of it slow, or every pair crossing from it to the other
// hosts slow, is one slow node rather than its GPUs or its links.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "verdict/verdict_rules.hpp"

namespace collbench::diagnose {
namespace {

// The ranks of every host, hosts in name order.
std::map<std::string, std::vector<int>> ranks_by_host(const Measurements& measurements) {
  std::map<std::string, std::vector<int>> hosts;
  for (const RankIdentity& identity : measurements.ranks) {
    hosts[identity.host].push_back(identity.rank);
  }
  for (auto& [host, ranks] : hosts) std::sort(ranks.begin(), ranks.end());
  return hosts;
}

Suspect node_suspect(const std::string& host, const std::vector<int>& ranks) {
  Suspect node;
  node.kind = SuspectKind::slow_node;
  node.rank = ranks.front();
  node.ranks = ranks;
  node.host = host;
  return node;
}

void fold_host_gpus(const std::string& host, const std::vector<int>& ranks,
                    std::vector<Suspect>& suspects) {
  if (ranks.size() < 2) return;
  const auto slow_gpu_on = [](int rank) {
    return [rank](const Suspect& suspect) {
      return suspect.kind == SuspectKind::slow_gpu && suspect.rank == rank;
    };
  };
  for (int rank : ranks) {
    if (std::none_of(suspects.begin(), suspects.end(), slow_gpu_on(rank))) return;
  }
  Suspect node = node_suspect(host, ranks);
  for (int rank : ranks) {
    const auto gpu = std::find_if(suspects.begin(), suspects.end(), slow_gpu_on(rank));
    weigh(node, Deviation{gpu->figure, gpu->reference, 0, gpu->spreads, true});
    node.confirmed = node.confirmed && gpu->confirmed;
    for (const std::string& line : gpu->evidence) {
      node.evidence.push_back(fmt::format("rank {}: {}", rank, line));
    }
    suspects.erase(gpu);
  }
  suspects.push_back(std::move(node));
}

}  // namespace

bool SlowPairs::uncovered_slow(const PairJudgement* pair) const {
  return pair->slow() && covered.count(pair) == 0;
}

void fold_slow_gpus(const Judging& judging, std::vector<Suspect>& suspects) {
  for (const auto& [host, ranks] : ranks_by_host(judging.measurements)) {
    fold_host_gpus(host, ranks, suspects);
  }
}

// Every pair crossing from a host to the others is slow while some pair between two other hosts
// is not: the host's network, one slow node rather than its slow links or endpoints.
void fold_slow_crossings(const Judging& judging, SlowPairs& slow_pairs,
                         std::vector<Suspect>& suspects) {
  for (const auto& [host, ranks] : ranks_by_host(judging.measurements)) {
    const auto on_host = [&](int rank) {
      return std::find(ranks.begin(), ranks.end(), rank) != ranks.end();
    };
    std::vector<const PairJudgement*> crossing;
    bool healthy_elsewhere = false;
    for (const PairJudgement* pair : slow_pairs.pool) {
      const bool src_here = on_host(pair->pair->src);
      const bool dst_here = on_host(pair->pair->dst);
      if (src_here != dst_here) crossing.push_back(pair);
      if (!src_here && !dst_here && pair->crossing && !pair->slow()) healthy_elsewhere = true;
    }
    const bool all_slow = std::all_of(crossing.begin(), crossing.end(),
                                      [](const PairJudgement* pair) { return pair->slow(); });
    if (crossing.empty() || !all_slow || !healthy_elsewhere) continue;
    Suspect node = node_suspect(host, ranks);
    const PairJudgement* least = crossing.front();
    for (const PairJudgement* pair : crossing) {
      slow_pairs.covered.insert(pair);
      weigh(node, pair->worst().latest());
      if (pair->worst().unconfirmed()) node.confirmed = false;
      if (pair->worst().latest().spreads < least->worst().latest().spreads) least = pair;
    }
    node.evidence.push_back(
        fmt::format("all {} pairs crossing from host {} are slow, the least "
                    "of them {}",
                    crossing.size(), host, pair_figure_text(*least)));
    suspects.push_back(std::move(node));
  }
}

}  // namespace collbench::diagnose
