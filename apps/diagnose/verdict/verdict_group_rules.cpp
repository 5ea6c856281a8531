// The rule about collectives: a collective below what its pairs predict, followed down its
// bisection to the smallest group still slow, backs up the suspects in that group (the rank-level
// ones first), or becomes a suspect of its own when nothing else there explains it.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "verdict/verdict_rules.hpp"

namespace collbench::diagnose {
namespace {

bool slow(const Judging& judging, const GroupFigures& group) {
  GroupFigures judged = group;
  judged.expected_busbw_gbps = expected_busbw_gbps(judging, group);
  return group_is_slow(judged, judging.thresholds);
}

bool strict_subset(const GroupFigures& inner, const GroupFigures& outer) {
  const std::set<int> outer_ranks(outer.ranks.begin(), outer.ranks.end());
  const std::set<int> inner_ranks(inner.ranks.begin(), inner.ranks.end());
  return inner_ranks.size() < outer_ranks.size() &&
         std::includes(outer_ranks.begin(), outer_ranks.end(), inner_ranks.begin(),
                       inner_ranks.end());
}

// The largest slow groups of `slow_groups` strictly inside `outer` (all of them when null).
std::vector<const GroupFigures*> largest_inside(const std::vector<const GroupFigures*>& slow_groups,
                                                const GroupFigures* outer) {
  std::vector<const GroupFigures*> inside;
  for (const GroupFigures* group : slow_groups) {
    if (!outer || strict_subset(*group, *outer)) inside.push_back(group);
  }
  std::vector<const GroupFigures*> largest;
  for (const GroupFigures* group : inside) {
    const bool within_another =
        std::any_of(inside.begin(), inside.end(),
                    [&](const GroupFigures* other) { return strict_subset(*group, *other); });
    if (!within_another) largest.push_back(group);
  }
  return largest;
}

// The bisection replayed over the figures, so that the verdict needs no record of it: from each
// largest slow group, down into its one slow half; a group with no slow half (the link between
// the halves) or two (a shared cause) is where it stops.
std::vector<const GroupFigures*> smallest_slow_groups(const Judging& judging,
                                                      const std::string& op) {
  std::vector<const GroupFigures*> slow_groups;
  for (const GroupFigures& group : judging.measurements.groups) {
    if (group.op == op && slow(judging, group)) slow_groups.push_back(&group);
  }
  std::vector<const GroupFigures*> smallest;
  for (const GroupFigures* current : largest_inside(slow_groups, nullptr)) {
    for (auto halves = largest_inside(slow_groups, current); halves.size() == 1;
         halves = largest_inside(slow_groups, current)) {
      current = halves.front();
    }
    if (std::find(smallest.begin(), smallest.end(), current) == smallest.end()) {
      smallest.push_back(current);
    }
  }
  return smallest;
}

// A suspect for a slow group that nothing else explains: a link for two ranks, a node for one
// host, else a link among the group's ranks (the slowness needs all of them); never a rank-level
// cause, which only a rank's own figures can show.
Suspect group_suspect(const Judging& judging, std::vector<int> ranks, const Deviation& shortfall) {
  std::sort(ranks.begin(), ranks.end());
  std::set<std::string> hosts;
  for (int rank : ranks) {
    const RankIdentity* identity = identity_of(judging.measurements, rank);
    hosts.insert(identity ? identity->host : "");
  }
  const bool one_host = hosts.size() == 1 && ranks.size() > 2;
  Suspect suspect =
      rank_suspect(judging, one_host ? SuspectKind::slow_node : SuspectKind::slow_link,
                   ranks.front(), shortfall);
  suspect.ranks = ranks;
  if (ranks.size() == 2) {
    suspect.peer = ranks.back();
    return suspect;
  }
  suspect.pci_bus_id.clear();  // names no one GPU
  suspect.host = fmt::format("{}", fmt::join(hosts, ","));
  return suspect;
}

bool rank_level(SuspectKind kind) {
  return kind == SuspectKind::missing_rank || kind == SuspectKind::slow_gpu ||
         kind == SuspectKind::starved_host || kind == SuspectKind::straggler;
}

// Whether `suspect` slows a collective on `ranks`: a rank or a node when any of its ranks is in
// it, one side of a GPU likewise, a link only when both its ends are.
bool explains(const Suspect& suspect, const std::vector<int>& ranks) {
  const auto in_group = [&](int rank) {
    return std::find(ranks.begin(), ranks.end(), rank) != ranks.end();
  };
  if (suspect.kind == SuspectKind::slow_link) {
    return std::all_of(suspect.ranks.begin(), suspect.ranks.end(), in_group);
  }
  return std::any_of(suspect.ranks.begin(), suspect.ranks.end(), in_group);
}

// Gives `evidence` to the suspects that explain the group, rank-level causes alone when there
// are any (a busy GPU slows every collective it is in; the links beside it do not need the
// blame); false when none does.
bool add_to_explaining(std::vector<Suspect>& suspects, const std::vector<int>& ranks,
                       const std::string& evidence) {
  for (bool ranks_only : {true, false}) {
    bool explained = false;
    for (Suspect& suspect : suspects) {
      if (rank_level(suspect.kind) != ranks_only || !explains(suspect, ranks)) continue;
      suspect.evidence.push_back(evidence);
      explained = true;
    }
    if (explained) return true;
  }
  return false;
}

}  // namespace

double expected_busbw_gbps(const Judging& judging, const GroupFigures& group) {
  if (group.expected_busbw_gbps > 0) return group.expected_busbw_gbps;
  return ring_busbw_bound_gbps(judging.measurements, group.ranks);
}

void explain_slow_groups(const Judging& judging, std::vector<Suspect>& suspects) {
  std::vector<std::string> ops;
  for (const GroupFigures& group : judging.measurements.groups) {
    if (std::find(ops.begin(), ops.end(), group.op) == ops.end()) ops.push_back(group.op);
  }
  for (const std::string& op : ops) {
    for (const GroupFigures* group : smallest_slow_groups(judging, op)) {
      Deviation shortfall;
      shortfall.figure = group->busbw_gbps;
      shortfall.reference = expected_busbw_gbps(judging, *group);
      const std::string evidence =
          fmt::format("{} on ranks {}: busbw {:.0f} GB/s against the ring's {:.0f} ({})", op,
                      rank_list(group->ranks), shortfall.figure, shortfall.reference,
                      ratio_text(shortfall.ratio()));
      if (add_to_explaining(suspects, group->ranks, evidence)) continue;
      suspects.push_back(group_suspect(judging, group->ranks, shortfall));
      suspects.back().evidence.push_back(evidence);
    }
  }
}

}  // namespace collbench::diagnose
