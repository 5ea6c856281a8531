// The rules about links and nodes: slow pairs between healthy GPUs, and a host whose GPUs, or
// whose links to the other hosts, are all slow.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "verdict_rules.hpp"

namespace collbench::diagnose {
namespace {

const GpuFigures* gpu_of(const Measurements& measurements, int rank) {
  for (const GpuFigures& gpu : measurements.gpus) {
    if (gpu.rank == rank) return &gpu;
  }
  return nullptr;
}

// NVLink error counters above zero on `rank`'s GPU back a slow link up.
void add_nvlink_evidence(const Judging& judging, int rank, Suspect& suspect) {
  const GpuFigures* gpu = gpu_of(judging.measurements, rank);
  if (!gpu) return;
  const unsigned long long replay = gpu->nvlink_replay.value_or(0);
  const unsigned long long recovery = gpu->nvlink_recovery.value_or(0);
  const unsigned long long crc = gpu->nvlink_crc.value_or(0);
  if (replay + recovery + crc == 0) return;
  suspect.evidence.push_back(fmt::format("rank {} NVLink errors: {} replay, {} recovery, {} CRC",
                                         rank, replay, recovery, crc));
}

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
  node.ratio = 1;  // healthy until weighed
  return node;
}

// Every GPU of a host with two or more is a slow_gpu suspect: one slow node, their evidence
// kept line by line.
void fold_slow_gpus(const std::string& host, const std::vector<int>& ranks,
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
    weigh(node, {gpu->figure, gpu->expectation});
    for (const std::string& line : gpu->evidence) {
      node.evidence.push_back(fmt::format("rank {}: {}", rank, line));
    }
    suspects.erase(gpu);
  }
  suspects.push_back(std::move(node));
}

// Every pair crossing from a host to the others is slow while some pair between two other hosts
// is not: the host's network, one slow node rather than its slow links.
void fold_slow_crossings(const Judging& judging, const std::string& host,
                         const std::vector<int>& ranks, std::vector<Suspect>& suspects) {
  const auto on_host = [&](int rank) {
    return std::find(ranks.begin(), ranks.end(), rank) != ranks.end();
  };
  const auto crossing_from_host = [&](const PairFigures& pair) {
    return on_host(pair.src) != on_host(pair.dst);
  };
  const auto crossing_elsewhere = [&](const PairFigures& pair) {
    return !on_host(pair.src) && !on_host(pair.dst) &&
           crosses_hosts(judging.measurements, pair.src, pair.dst);
  };
  const std::optional<LeastSlowPair> least =
      every_pair_slow(judging, crossing_from_host, crossing_elsewhere);
  if (!least) return;
  suspects.erase(std::remove_if(suspects.begin(), suspects.end(),
                                [&](const Suspect& suspect) {
                                  return suspect.kind == SuspectKind::slow_link && suspect.peer &&
                                         on_host(suspect.rank) != on_host(*suspect.peer);
                                }),
                 suspects.end());
  auto node = std::find_if(suspects.begin(), suspects.end(), [&](const Suspect& suspect) {
    return suspect.kind == SuspectKind::slow_node && suspect.host == host;
  });
  if (node == suspects.end()) {
    suspects.push_back(node_suspect(host, ranks));
    node = suspects.end() - 1;
  }
  weigh(*node, least->reading.worst());
  node->evidence.push_back(
      fmt::format("every pair crossing from host {} is slow, the least of them {}", host,
                  fmt::join(pair_evidence(judging, *least->pair, least->reading), "; ")));
}

}  // namespace

std::vector<Suspect> slow_link_suspects(const Judging& judging,
                                        const std::vector<Suspect>& so_far) {
  const auto already_suspect = [&](int rank) {
    return std::any_of(so_far.begin(), so_far.end(),
                       [&](const Suspect& suspect) { return names_rank(suspect, rank); });
  };
  std::vector<Suspect> links;  // one per unordered pair: both directions are one link
  for (const PairFigures& pair : judging.measurements.pairs) {
    const PairReading reading = read_pair(judging, pair);
    if (!reading.slow() || already_suspect(pair.src) || already_suspect(pair.dst)) continue;
    const int low = std::min(pair.src, pair.dst);
    const int high = std::max(pair.src, pair.dst);
    auto link = std::find_if(links.begin(), links.end(), [&](const Suspect& suspect) {
      return suspect.rank == low && suspect.peer == high;
    });
    if (link == links.end()) {
      links.push_back(rank_suspect(judging, SuspectKind::slow_link, low, reading.worst()));
      link = links.end() - 1;
      link->peer = high;
      link->ranks = {low, high};
    }
    weigh(*link, reading.worst());
    for (std::string& line : pair_evidence(judging, pair, reading)) {
      link->evidence.push_back(std::move(line));
    }
  }
  for (Suspect& link : links) {
    add_nvlink_evidence(judging, link.rank, link);
    add_nvlink_evidence(judging, *link.peer, link);
  }
  return links;
}

void fold_slow_nodes(const Judging& judging, std::vector<Suspect>& suspects) {
  for (const auto& [host, ranks] : ranks_by_host(judging.measurements)) {
    fold_slow_gpus(host, ranks, suspects);
    fold_slow_crossings(judging, host, ranks, suspects);
  }
}

}  // namespace collbench::diagnose
