// The arrival rule: each rank's GPU and host lateness over the samples of one collective, and
// which rank came late, judged against the others' lateness and its noise.
#include "reports/arrival.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "reports/statistics.hpp"

namespace collbench::stats {
namespace {

// 1.4826 x MAD estimates the standard deviation of normal data while ignoring outliers.
constexpr double kMadToSigma = 1.4826;

double mean_of(const std::vector<double>& values) {
  double sum = 0;
  for (double value : values) sum += value;
  return sum / static_cast<double>(values.size());
}

}  // namespace

double trimmed_lateness_mean(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  values.resize(values.size() - values.size() / 10);
  return mean_of(values);
}

namespace {

double robust_spread(const std::vector<double>& values) {
  const double center = median(values);
  std::vector<double> deviations;
  deviations.reserve(values.size());
  for (double value : values) deviations.push_back(std::fabs(value - center));
  return kMadToSigma * median(deviations);
}

// Throws unless `duration_us` is ranks x samples (at least one sample), `launch_us` empty or the
// same shape, and `host_of` empty or one per rank.
std::size_t checked_sample_count(const std::vector<std::vector<double>>& duration_us,
                                 const std::vector<std::vector<double>>& launch_us,
                                 const std::vector<int>& host_of) {
  const std::size_t ranks = duration_us.size();
  const std::size_t samples = duration_us.front().size();
  if (samples == 0) throw std::invalid_argument("arrivals: rank 0 has no samples");
  for (std::size_t rank = 0; rank < ranks; ++rank) {
    if (duration_us[rank].size() != samples) {
      throw std::invalid_argument(fmt::format("arrivals: rank {} has {} durations, rank 0 has {}",
                                              rank, duration_us[rank].size(), samples));
    }
  }
  if (!launch_us.empty() && launch_us.size() != ranks) {
    throw std::invalid_argument(
        fmt::format("arrivals: {} ranks of launches for {} ranks", launch_us.size(), ranks));
  }
  for (std::size_t rank = 0; rank < launch_us.size(); ++rank) {
    if (launch_us[rank].size() != samples) {
      throw std::invalid_argument(fmt::format("arrivals: rank {} has {} launches for {} samples",
                                              rank, launch_us[rank].size(), samples));
    }
  }
  if (!host_of.empty() && host_of.size() != ranks) {
    throw std::invalid_argument(
        fmt::format("arrivals: {} hosts given for {} ranks", host_of.size(), ranks));
  }
  return samples;
}

// The lateness figure of one rank's samples, averaged as `mean` says.
double lateness_mean(const std::vector<double>& lateness_us, LatenessMean mean) {
  return mean == LatenessMean::latest_tenth_aside ? trimmed_lateness_mean(lateness_us)
                                                  : mean_of(lateness_us);
}

// Per sample: longest duration - own (lateness), own - shortest (waited).
void add_gpu_figures(const std::vector<std::vector<double>>& duration_us, std::size_t samples,
                     LatenessMean mean, std::vector<RankArrival>& arrivals) {
  const std::size_t ranks = duration_us.size();
  std::vector<std::vector<double>> lateness_us(ranks, std::vector<double>(samples));
  std::vector<double> waited_sum_us(ranks, 0);
  for (std::size_t sample = 0; sample < samples; ++sample) {
    double longest_us = duration_us[0][sample];
    double shortest_us = longest_us;
    for (std::size_t rank = 1; rank < ranks; ++rank) {
      longest_us = std::max(longest_us, duration_us[rank][sample]);
      shortest_us = std::min(shortest_us, duration_us[rank][sample]);
    }
    for (std::size_t rank = 0; rank < ranks; ++rank) {
      lateness_us[rank][sample] = longest_us - duration_us[rank][sample];
      waited_sum_us[rank] += duration_us[rank][sample] - shortest_us;
    }
  }
  for (std::size_t rank = 0; rank < ranks; ++rank) {
    arrivals[rank].gpu_lateness_us = lateness_mean(lateness_us[rank], mean);
    arrivals[rank].gpu_lateness_spread_us = robust_spread(lateness_us[rank]);
    arrivals[rank].waited_us = waited_sum_us[rank] / static_cast<double>(samples);
    arrivals[rank].gpu_lateness_samples_us = std::move(lateness_us[rank]);
  }
}

// Per sample: own launch - the earliest launch among the ranks of its host (one clock).
void add_host_figures(const std::vector<std::vector<double>>& launch_us, std::size_t samples,
                      LatenessMean mean, std::vector<RankArrival>& arrivals) {
  const std::size_t ranks = arrivals.size();
  for (std::size_t rank = 0; rank < ranks; ++rank) {
    std::vector<std::size_t> host_ranks;
    for (std::size_t other = 0; other < ranks; ++other) {
      if (arrivals[other].host == arrivals[rank].host) host_ranks.push_back(other);
    }
    if (launch_us.empty() || host_ranks.size() < 2) continue;  // no clock to compare with
    std::vector<double> lateness_us(samples);
    for (std::size_t sample = 0; sample < samples; ++sample) {
      double earliest_us = launch_us[rank][sample];
      for (std::size_t other : host_ranks) {
        earliest_us = std::min(earliest_us, launch_us[other][sample]);
      }
      lateness_us[sample] = launch_us[rank][sample] - earliest_us;
    }
    arrivals[rank].host_known = true;
    arrivals[rank].host_lateness_us = lateness_mean(lateness_us, mean);
    arrivals[rank].host_lateness_spread_us = robust_spread(lateness_us);
    arrivals[rank].host_lateness_samples_us = std::move(lateness_us);
  }
}

// The limit one figure of one rank is judged against, from the same figure of its peers.
struct FigureLimit {
  double limit_us = 0;
  double spread_us = 0;
};

FigureLimit figure_limit(const std::vector<double>& peer_means_us,
                         const std::vector<double>& peer_spreads_us, double op_time_us,
                         double floor_us, const ArrivalRule& rule) {
  const double fixed_limit_us = std::max(floor_us, rule.op_share * op_time_us);
  if (peer_means_us.empty()) return {fixed_limit_us, rule.resolution_us};
  double squares = 0;
  for (double spread : peer_spreads_us) squares += spread * spread;
  const double pooled_us = std::sqrt(squares / static_cast<double>(peer_spreads_us.size()));
  const double spread_us = std::max({robust_spread(peer_means_us), pooled_us, rule.resolution_us});
  const double noise_limit_us = median(peer_means_us) + rule.spread_factor * spread_us;
  return {std::max(fixed_limit_us, noise_limit_us), spread_us};
}

// The limit of rank `rank`'s GPU figure (host == false) or host figure (host == true).
FigureLimit rank_limit(const std::vector<RankArrival>& ranks, std::size_t rank, bool host,
                       double op_time_us, const ArrivalRule& rule) {
  std::vector<double> means_us, spreads_us;
  for (std::size_t other = 0; other < ranks.size(); ++other) {
    if (other == rank) continue;
    if (host && (!ranks[other].host_known || ranks[other].host != ranks[rank].host)) continue;
    means_us.push_back(host ? ranks[other].host_lateness_us : ranks[other].gpu_lateness_us);
    spreads_us.push_back(host ? ranks[other].host_lateness_spread_us
                              : ranks[other].gpu_lateness_spread_us);
  }
  return figure_limit(means_us, spreads_us, op_time_us, host ? rule.host_floor_us : rule.floor_us,
                      rule);
}

RankArrivalJudgement judge_rank(const std::vector<RankArrival>& ranks, std::size_t rank,
                                double op_time_us, const ArrivalRule& rule) {
  const RankArrival& arrival = ranks[rank];
  const FigureLimit gpu = rank_limit(ranks, rank, false, op_time_us, rule);
  RankArrivalJudgement judgement;
  judgement.limit_us = gpu.limit_us;
  judgement.margin_spreads = (arrival.gpu_lateness_us - gpu.limit_us) / gpu.spread_us;
  const bool late_gpu = arrival.gpu_lateness_us > gpu.limit_us;
  bool late_host = false;
  if (arrival.host_known) {
    const FigureLimit host = rank_limit(ranks, rank, true, op_time_us, rule);
    judgement.host_limit_us = host.limit_us;
    late_host = arrival.host_lateness_us > host.limit_us;
    if (late_host && !late_gpu) {
      judgement.margin_spreads = (arrival.host_lateness_us - host.limit_us) / host.spread_us;
    }
  }
  judgement.late = late_gpu || late_host;
  if (late_gpu) {
    // A host late itself (beyond its own limit: host launches jitter by tens of microseconds
    // anyway) by at least host_share of the GPU's delay explains it; otherwise the GPU started
    // late after an on-time launch, unless there was no host clock to tell.
    const bool host_explains =
        late_host && arrival.host_lateness_us >= rule.host_share * arrival.gpu_lateness_us;
    judgement.cause = host_explains        ? LateCause::host
                      : arrival.host_known ? LateCause::gpu
                                           : LateCause::unknown;
  } else if (late_host) {
    judgement.cause = LateCause::host;  // a start gate on the GPUs absorbed the late launch
  }
  judgement.waiting = !judgement.late && arrival.waited_us > judgement.limit_us;
  return judgement;
}

// The late rank with the most GPU lateness among those late on the GPU, else the most host
// lateness among those late only on their host.
int latest_late_rank(const std::vector<RankArrival>& ranks,
                     const std::vector<RankArrivalJudgement>& judgements) {
  int latest = -1;
  bool latest_on_gpu = false;
  for (std::size_t rank = 0; rank < ranks.size(); ++rank) {
    if (!judgements[rank].late) continue;
    const bool on_gpu = ranks[rank].gpu_lateness_us > judgements[rank].limit_us;
    const auto figure = [&](std::size_t r) {
      return on_gpu ? ranks[r].gpu_lateness_us : ranks[r].host_lateness_us;
    };
    const bool better =
        latest < 0 || (on_gpu && !latest_on_gpu) ||
        (on_gpu == latest_on_gpu && figure(rank) > figure(static_cast<std::size_t>(latest)));
    if (better) {
      latest = static_cast<int>(rank);
      latest_on_gpu = on_gpu;
    }
  }
  return latest;
}

}  // namespace

std::vector<RankArrival> summarize_arrivals(const std::vector<std::vector<double>>& duration_us,
                                            const std::vector<std::vector<double>>& launch_us,
                                            const std::vector<int>& host_of, LatenessMean mean) {
  if (duration_us.empty()) return {};
  const std::size_t samples = checked_sample_count(duration_us, launch_us, host_of);
  std::vector<RankArrival> arrivals(duration_us.size());
  for (std::size_t rank = 0; rank < host_of.size(); ++rank) arrivals[rank].host = host_of[rank];
  add_gpu_figures(duration_us, samples, mean, arrivals);
  add_host_figures(launch_us, samples, mean, arrivals);
  return arrivals;
}

ArrivalJudgement judge_arrivals(const std::vector<RankArrival>& ranks, double op_time_us,
                                const ArrivalRule& rule) {
  ArrivalJudgement judgement;
  for (std::size_t rank = 0; rank < ranks.size(); ++rank) {
    if (ranks.size() < 2) {
      judgement.ranks.push_back({});  // nothing to compare with
      continue;
    }
    judgement.ranks.push_back(judge_rank(ranks, rank, op_time_us, rule));
  }
  judgement.latest_rank = latest_late_rank(ranks, judgement.ranks);
  return judgement;
}

const char* late_cause_name(LateCause cause) {
  switch (cause) {
    case LateCause::none:
      return "on_time";
    case LateCause::host:
      return "host";
    case LateCause::gpu:
      return "gpu";
    case LateCause::unknown:
      return "unknown";
  }
  return "unknown";
}

bool finishes_together(std::string_view op) {
  static constexpr std::array<std::string_view, 5> kTogether = {
      "all_reduce", "all_gather", "reduce_scatter", "alltoall", "alltoallv"};
  return std::find(kTogether.begin(), kTogether.end(), op) != kTogether.end();
}

}  // namespace collbench::stats
