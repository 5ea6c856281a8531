// judge(): the rules in order, then the suspects by severity.
#include "verdict.hpp"

#include <algorithm>
#include <tuple>

#include "verdict_rules.hpp"

namespace collbench::diagnose {
namespace {

constexpr SuspectKind kKinds[] = {SuspectKind::missing_rank, SuspectKind::slow_gpu,
                                  SuspectKind::slow_node, SuspectKind::slow_link,
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

}  // namespace

const char* kind_name(SuspectKind kind) {
  switch (kind) {
    case SuspectKind::missing_rank:
      return "missing_rank";
    case SuspectKind::slow_gpu:
      return "slow_gpu";
    case SuspectKind::slow_node:
      return "slow_node";
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

double Thresholds::lateness_limit_us(double op_time_us) const {
  return std::max(straggler_min_us, straggler_op_share * op_time_us);
}

bool group_is_slow(const GroupFigures& group, const Thresholds& thresholds) {
  return group.expected_busbw_gbps > 0 &&
         group.busbw_gbps < thresholds.slow_ratio * group.expected_busbw_gbps;
}

Verdict judge(const Measurements& measurements, const Thresholds& thresholds) {
  const Judging judging{measurements, thresholds, expectations_of(measurements)};
  std::vector<Suspect> suspects = missing_rank_suspects(judging);
  append(suspects, straggler_suspects(judging));
  append(suspects, slow_gpu_suspects(judging, suspects));
  drop_missing_ranks(judging, suspects);
  // Links and nodes only where the GPUs at their ends are not already suspects.
  append(suspects, slow_link_suspects(judging, suspects));
  fold_slow_nodes(judging, suspects);
  explain_slow_groups(judging, suspects);

  std::stable_sort(suspects.begin(), suspects.end(), [](const Suspect& a, const Suspect& b) {
    return std::make_tuple(a.kind, health(a.ratio), a.rank) <
           std::make_tuple(b.kind, health(b.ratio), b.rank);
  });
  Verdict verdict;
  verdict.suspects = std::move(suspects);
  verdict.margins = margins_of(judging);
  verdict.expectations = judging.expectations;
  verdict.thresholds = thresholds;
  return verdict;
}

}  // namespace collbench::diagnose
