// What a workload recorded of an op's time, as the replay compares and keeps it: its GPU time, its
// span on the recording rank's clock, and (--gaps) the idle time before each step on each stream
// it touches, to be replayed as a delay on that stream alone.
#pragma once

#include <optional>
#include <vector>

#include "plan/issue_plan.hpp"
#include "workload/workload_records.hpp"

namespace collbench::replay {

// Its GPU time: end - start, else duration_us; nothing when the source recorded neither.
std::optional<double> recorded_duration_us(const RecordedTimes& times);

struct RecordedSpan {
  double begin_us = 0;
  double end_us = 0;
};
// [start_us, end_us] when it ran on the GPU; else [issue_us, issue_us + duration_us (0 when
// none)]: the host's time, all a Flight Recorder dump has; nothing without either.
std::optional<RecordedSpan> recorded_span(const RecordedTimes& times);

// Gaps shorter than this are left out: a delay kernel's own launch costs about as much.
inline constexpr double kShortestReplayedGapUs = 1.0;

// Before a step, `stream` waits `delay_us` on the GPU.
struct StepDelay {
  int stream = 0;
  double delay_us = 0;
};

// Per step of `plan`, the delays before it: on each stream it touches, from the end of that
// stream's previous step (the latest end of its ops there) to the earliest begin of this step's
// ops there; before a stream's first step, from the rank's earliest recorded begin, so that the
// streams keep their offsets. Overlaps count as no gap; ops without times give none.
std::vector<std::vector<StepDelay>> recorded_gaps(const std::vector<WorkloadOp>& ops,
                                                  const RankIssuePlan& plan);

}  // namespace collbench::replay
