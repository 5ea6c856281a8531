// Recorded times, spans and gaps.
#include "plan/recorded_times.hpp"

#include <algorithm>

namespace collbench::replay {
namespace {

// The span of a step's ops on one stream; nothing when one of them has no time.
std::optional<RecordedSpan> step_span(const std::vector<WorkloadOp>& ops, const IssueStep& step,
                                      int stream) {
  std::optional<RecordedSpan> span;
  for (std::size_t ordinal : step.ops) {
    if (ops[ordinal].stream != stream) continue;
    const std::optional<RecordedSpan> own = recorded_span(ops[ordinal].times);
    if (!own) return std::nullopt;
    if (!span) {
      span = own;
      continue;
    }
    span->begin_us = std::min(span->begin_us, own->begin_us);
    span->end_us = std::max(span->end_us, own->end_us);
  }
  return span;
}

std::optional<double> earliest_begin_us(const std::vector<WorkloadOp>& ops) {
  std::optional<double> earliest;
  for (const WorkloadOp& op : ops) {
    if (const std::optional<RecordedSpan> span = recorded_span(op.times))
      earliest = earliest ? std::min(*earliest, span->begin_us) : span->begin_us;
  }
  return earliest;
}

}  // namespace

std::optional<double> recorded_duration_us(const RecordedTimes& times) {
  if (times.start_us && times.end_us) return *times.end_us - *times.start_us;
  return times.duration_us;
}

std::optional<RecordedSpan> recorded_span(const RecordedTimes& times) {
  if (times.start_us && times.end_us) return RecordedSpan{*times.start_us, *times.end_us};
  if (!times.issue_us) return std::nullopt;
  return RecordedSpan{*times.issue_us, *times.issue_us + times.duration_us.value_or(0.0)};
}

std::vector<std::vector<StepDelay>> recorded_gaps(const std::vector<WorkloadOp>& ops,
                                                  const RankIssuePlan& plan) {
  std::vector<std::vector<StepDelay>> delays(plan.steps.size());
  const std::optional<double> origin_us = earliest_begin_us(ops);
  if (!origin_us) return delays;
  // Per stream, where its previous step ended (the origin before its first); none after an op
  // without times, until one with times comes.
  std::vector<std::optional<double>> stream_end_us(plan.streams.size(), origin_us);
  for (std::size_t s = 0; s < plan.steps.size(); ++s) {
    for (int stream : plan.steps[s].streams) {
      std::optional<double>& previous_end = stream_end_us[static_cast<std::size_t>(stream)];
      const std::optional<RecordedSpan> span = step_span(ops, plan.steps[s], stream);
      if (span && previous_end && span->begin_us - *previous_end >= kShortestReplayedGapUs)
        delays[s].push_back({stream, span->begin_us - *previous_end});
      if (!span) {
        previous_end.reset();
      } else {
        previous_end = previous_end ? std::max(*previous_end, span->end_us) : span->end_us;
      }
    }
  }
  return delays;
}

}  // namespace collbench::replay
