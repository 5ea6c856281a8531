// From the ranks' measurements to the figures a replay reports, with the engine's statistics
// (core/metrics.hpp: the median and its interval) and the registry's bandwidths:
// - per op of each rank: its time per iteration, busbw from the median, its recorded GPU time;
// - per communicator, op, dtype and reduction: the calls of one iteration (a collective: all its
//   members' ops; a send with its recv: one pair), and per iteration the slowest rank's time per
//   call (each rank's steps holding the row's calls summed, a group's time once: its ops run as
//   one launch, over the calls it takes part in: a rank holds only its own pairs), as nccl-tests
//   reports the slowest rank; time per call and busbw of each iteration, their medians; and apart
//   from that, the calls' arrival skew and their time without waiting (plan/arrival_skew.hpp);
// - per rank: the window's wall per iteration (issued plain: nothing that times the ops), and
//   that of the iterations the ops' times come from, beside its ops' times summed and the time
//   during which at least one op ran: what the sum exceeds that by ran concurrently on several
//   streams.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/metrics.hpp"
#include "plan/arrival_skew.hpp"
#include "plan/rank_results.hpp"
#include "plan/workload_ops.hpp"

namespace collbench::replay {

struct OpFigures {
  TimeStats time;
  double busbw_gbps = 0;  // from the median time
  std::uint64_t bytes = 0;
  std::optional<double> recorded_us;
  std::uint64_t mismatches = 0;
};

// One row per communicator, op, dtype and reduction (each its own curve in a report); sends and
// recvs are one row of pairs, "send/recv".
struct OpKindFigures {
  int comm = 0;
  std::string op;           // as the console names it: "send/recv" for pairs
  std::string registry_op;  // the collective registry's name: "sendrecv" for pairs
  DataType dtype = DataType::float32;
  std::optional<ReduceOp> redop;       // reducing ops only
  std::vector<int> roots;              // rooted ops: the calls' roots, each once, ascending
  std::optional<std::uint64_t> count;  // NCCL's count, when every call's is the same
  std::uint64_t calls = 0;             // per iteration
  std::uint64_t bytes = 0;             // per iteration: each call's nccl-tests size, summed
  TimeStats time_per_call;  // per iteration: the slowest rank's time on its calls / its calls
  // Medians over iterations of the bytes (algbw) and bus bytes (busbw) per call / that time;
  // busbw too at the ends of the median time's interval (0 without one).
  double algbw_gbps = 0;
  double busbw_gbps = 0;
  double busbw_lo_gbps = 0;
  double busbw_hi_gbps = 0;
  std::uint64_t mismatches = 0;  // --check: wrong elements over the calls' ops
  // Alike from the recorded times (a step's: its ops' longest): only when every op has one.
  std::optional<double> recorded_us_per_call;
  ArrivalFigures arrival;  // how late members arrive, apart from the call's own time
};

struct RankWindowFigures {
  int rank = 0;
  TimeStats window;  // the window's wall, from the start of its streams to their join, issued
                     // plain (RankResults::plain_window_us)
  TimeStats window_timing_ops;               // the same of the iterations the ops' times are from
  TimeStats op_time_sum;                     // its ops' times summed (a group's once per stream)
  TimeStats busy;                            // the time during which at least one of its ops ran
  std::optional<double> recorded_window_us;  // its recorded span, first begin to last end
};

struct ReplayFigures {
  std::vector<std::vector<OpFigures>> ops;  // [rank][ordinal]
  std::vector<OpKindFigures> kinds;         // by communicator, op name, dtype, reduction
  std::vector<RankWindowFigures> ranks;
  TimeStats window;             // per iteration, the slowest rank's window (issued plain)
  TimeStats window_timing_ops;  // ... of the iterations the ops' times are from
  int iterations = 0;
};

// "float" or "float sum": a row's dtype, and its reduction where it has one.
std::string type_text(const OpKindFigures& kind);

// `results`: every rank's, by rank (index = global rank).
ReplayFigures replay_figures(const WorkloadOps& workload, const std::vector<RankResults>& results);

// The length of the union of `intervals`: the time at least one of them covers.
double covered_us(std::vector<OpInterval> intervals);

}  // namespace collbench::replay
