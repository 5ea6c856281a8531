// How late a call's members arrive, apart from the call's own time. Ranks of one host start an
// iteration together (the start gate), and each op's interval counts from its rank's iteration
// start, so start offsets compare across the members of one call (to within the gate's release
// spread). A call's arrival skew is its latest member's start offset minus its earliest's; its
// time without waiting is the shortest member's duration: a collective cannot finish before its
// last member arrives, so the last to arrive waits least, and its duration is the call's own work.
// The recorded times (start_us/end_us, Kineto) give the same two figures where every member has
// them. A row's figures are per call: the mean over the row's calls of one iteration, then the
// median over iterations (and its interval), as the row's time per call.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "core/metrics.hpp"
#include "plan/rank_results.hpp"
#include "plan/workload_ops.hpp"

namespace collbench::replay {

// One call's arrival skew and its time without waiting, in microseconds.
struct CallArrival {
  double skew_us = 0;
  double op_us = 0;
};

// From the members' intervals on one iteration (at least one member; each from its own rank's
// iteration start).
CallArrival call_arrival(const std::vector<OpInterval>& members);

// A member of a call: an op of a rank (a collective's member, a pair's send or recv).
struct CallMember {
  std::size_t rank = 0;
  std::size_t ordinal = 0;
  // The row's calls that the member's group launch holds on its rank (a ring's send and recv: 2):
  // its duration is shared among them, as the row's time per call shares it.
  std::size_t calls_in_launch = 1;
};
using CallMembers = std::vector<CallMember>;

struct ArrivalFigures {
  TimeStats skew_per_call;  // per iteration: the calls' skews, mean
  TimeStats op_per_call;    // per iteration: the calls' times without waiting, mean
  // From the recorded start_us/end_us, when every member of every call has them: one host's clock
  // is shared by its ranks; members on other hosts add those clocks' offset.
  std::optional<double> recorded_skew_us;
  std::optional<double> recorded_op_us;
};

// The figures of a row's `calls` from every rank's `results` (index: global rank); the calls must
// not be empty.
ArrivalFigures arrival_figures(const std::vector<CallMembers>& calls, const WorkloadOps& workload,
                               const std::vector<RankResults>& results);

}  // namespace collbench::replay
