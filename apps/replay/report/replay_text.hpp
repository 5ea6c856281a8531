// The console report of a replay: before it runs, what is replayed and how; after, a table per
// communicator and op (calls per iteration, bytes per call, time per call with its interval,
// busbw, the recorded time and replayed/recorded) and per rank its window against its ops' time
// (how much of it ran concurrently on several streams).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "plan/replay_figures.hpp"
#include "report/replay_run_info.hpp"

namespace collbench::replay {

void print_replay_header(const WorkloadOps& workload, const ReplayRunInfo& info,
                         const std::string& processes, std::ostream& out);
void print_replay_figures(const ReplayFigures& figures, const ReplayRunInfo& info,
                          std::ostream& out);

// One line per op whose checked output was wrong: "rank 1: 12 elements of all_reduce seq 3 on
// communicator 0 (ranks 0,1) (nccl.vm.5974.log:85) differ from the expected values (op 7 of the
// rank)"; none when all were right (or nothing was checked).
std::vector<std::string> mismatch_lines(const WorkloadOps& workload, const ReplayFigures& figures);

// "123.4 [120.1, 130.2]": a median and its interval (the median alone without one).
std::string median_text(const TimeStats& time);

}  // namespace collbench::replay
