// Op times from the GPU's own records of a replay's work (core/traced_activity.hpp; the trace is
// taken in run/): each step's launches carry a tag naming the rank, the timed iteration and the
// step (a graph's nodes the step from their capture, the iteration from the graph's launch), and
// each traced iteration starts with a marker kernel on the rank's lead stream, whose end is the
// rank's iteration start, as the start event is where events time the ops.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/traced_activity.hpp"
#include "plan/rank_results.hpp"

namespace collbench::replay {

struct ReplayTag {
  int rank = 0;
  int iteration = 0;  // kCapturedIteration for a graph node's tag
  int step = 0;       // or kIterationStartStep, kGraphLaunchStep
};

inline constexpr int kCapturedIteration = (1 << 21) - 1;
inline constexpr int kIterationStartStep = (1 << 22) - 1;
inline constexpr int kGraphLaunchStep = (1 << 22) - 2;
inline constexpr int kMostTracedRanks = 1 << 20;
inline constexpr int kMostTracedSteps = kGraphLaunchStep;

// Never 0 (which CUPTI's records read as no tag); throws std::invalid_argument naming the field
// when a rank, iteration or step does not fit (kMostTracedRanks, kMostTracedSteps).
std::uint64_t pack_replay_tag(const ReplayTag& tag);
// Nothing for 0 or a tag pack_replay_tag did not make.
std::optional<ReplayTag> unpack_replay_tag(std::uint64_t packed);

// Rank `rank`'s op intervals in traced iteration `iteration`, from `activity` (what the trace
// recorded of it, every traced rank's of the process): an op's interval is its step's (a group's
// ops share it), from the first start to the last end of the work the step launched, counted from
// the end of the iteration's start marker. Left out: other ranks' and iterations' work, work of no
// step, and work that started before the marker ended (a graph's nodes are recorded at launches
// outside the traced iterations too, under tags that can match a traced launch's). A step that
// launched nothing on the GPU (an op skipped) is an empty interval where the rank's earlier steps
// had ended. `step_of_op`: each op's step, by ordinal. Throws std::runtime_error naming the rank
// and iteration when the start marker is missing.
std::vector<OpInterval> traced_op_intervals(const std::vector<TracedActivity>& activity, int rank,
                                            int iteration,
                                            const std::vector<std::size_t>& step_of_op,
                                            std::size_t steps);

}  // namespace collbench::replay
