// Op intervals from traced work (traced_op_times.hpp).
#include "plan/traced_op_times.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <utility>

namespace collbench::replay {
namespace {

// From the top: a set bit (no tag is 0), then rank (20 bits), iteration (21), step (22).
constexpr int kStepBits = 22;
constexpr int kIterationBits = 21;
constexpr int kRankBits = 20;
constexpr std::uint64_t kMarkerBit = std::uint64_t{1} << (kStepBits + kIterationBits + kRankBits);

std::uint64_t field(std::uint64_t packed, int shift, int bits) {
  return (packed >> shift) & ((std::uint64_t{1} << bits) - 1);
}

struct Span {
  std::uint64_t start_ns = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t end_ns = 0;
  bool seen() const { return end_ns != 0; }
  void extend(const TracedActivity& work) {
    start_ns = std::min(start_ns, work.start_ns);
    end_ns = std::max(end_ns, work.end_ns);
  }
};

double us_between(std::uint64_t from_ns, std::uint64_t to_ns) {
  return to_ns >= from_ns ? static_cast<double>(to_ns - from_ns) / 1000.0
                          : -static_cast<double>(from_ns - to_ns) / 1000.0;
}

}  // namespace

std::uint64_t pack_replay_tag(const ReplayTag& tag) {
  if (tag.rank < 0 || tag.rank >= kMostTracedRanks)
    throw std::invalid_argument(
        fmt::format("rank {} cannot be traced (at most {} ranks)", tag.rank, kMostTracedRanks));
  if (tag.iteration < 0 || tag.iteration > kCapturedIteration)
    throw std::invalid_argument(fmt::format("timed iteration {} cannot be traced (at most {})",
                                            tag.iteration, kCapturedIteration - 1));
  if (tag.step < 0 || tag.step > kIterationStartStep)
    throw std::invalid_argument(
        fmt::format("step {} of rank {} cannot be traced (at most {} steps)", tag.step, tag.rank,
                    kMostTracedSteps));
  return kMarkerBit | (static_cast<std::uint64_t>(tag.rank) << (kStepBits + kIterationBits)) |
         (static_cast<std::uint64_t>(tag.iteration) << kStepBits) |
         static_cast<std::uint64_t>(tag.step);
}

std::optional<ReplayTag> unpack_replay_tag(std::uint64_t packed) {
  if ((packed & kMarkerBit) == 0) return std::nullopt;
  return ReplayTag{static_cast<int>(field(packed, kStepBits + kIterationBits, kRankBits)),
                   static_cast<int>(field(packed, kStepBits, kIterationBits)),
                   static_cast<int>(field(packed, 0, kStepBits))};
}

std::vector<OpInterval> traced_op_intervals(const std::vector<TracedActivity>& activity, int rank,
                                            int iteration,
                                            const std::vector<std::size_t>& step_of_op,
                                            std::size_t steps) {
  // Each piece of work with the step it ran for (kIterationStartStep: the marker), if this rank's
  // in this iteration.
  std::vector<std::pair<int, const TracedActivity*>> ours;
  Span start;
  for (const TracedActivity& work : activity) {
    const std::optional<ReplayTag> launch = unpack_replay_tag(work.launch_tag);
    if (!launch || launch->rank != rank || launch->iteration != iteration) continue;
    int step = launch->step;
    if (work.node_tag != 0) {
      const std::optional<ReplayTag> node = unpack_replay_tag(work.node_tag);
      if (!node || node->rank != rank || node->iteration != kCapturedIteration) continue;
      step = node->step;
    } else if (step == kGraphLaunchStep) {
      continue;  // a graph's node captured outside every step (a gap's delay, a join)
    }
    if (step == kIterationStartStep) {
      start.extend(work);
    } else if (static_cast<std::size_t>(step) < steps) {
      ours.emplace_back(step, &work);
    }
  }
  if (!start.seen())
    throw std::runtime_error(fmt::format(
        "the kernel trace holds no start of rank {}'s timed iteration {}", rank, iteration));
  const std::uint64_t origin_ns = start.end_ns;
  std::vector<Span> spans(steps);
  for (const auto& [step, work] : ours) {
    if (work->start_ns >= origin_ns) spans[static_cast<std::size_t>(step)].extend(*work);
  }
  std::vector<OpInterval> by_step(steps);
  double ended_us = 0;
  for (std::size_t s = 0; s < steps; ++s) {
    by_step[s] = spans[s].seen() ? OpInterval{us_between(origin_ns, spans[s].start_ns),
                                              us_between(origin_ns, spans[s].end_ns)}
                                 : OpInterval{ended_us, ended_us};
    ended_us = std::max(ended_us, by_step[s].end_us);
  }
  std::vector<OpInterval> intervals;
  for (const std::size_t step : step_of_op) intervals.push_back(by_step.at(step));
  return intervals;
}

}  // namespace collbench::replay
