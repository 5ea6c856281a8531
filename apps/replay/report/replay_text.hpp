// The console report of a replay: before it runs, what is replayed and how; after, a table per
// communicator and op (calls per iteration, bytes per call, time per call with its interval,
// busbw, the recorded time and replayed/recorded) and per rank its window against its ops' time
// (how much of it ran concurrently on several streams); with several combinations of the swept
// settings, each one's table under its name, then which is fastest per row and for the window.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "plan/combination_summary.hpp"
#include "plan/replay_figures.hpp"
#include "report/replay_run_info.hpp"

namespace collbench::replay {

void print_replay_header(const WorkloadOps& workload, const ReplayRunInfo& info,
                         const std::string& processes, std::ostream& out);
void print_replay_figures(const ReplayFigures& figures, const ReplayRunInfo& info,
                          std::ostream& out);

// "# 2 combinations of the swept settings, one after another: default, nccl_proto=LL"; nothing
// for one.
void print_combinations_line(const std::vector<ReplayCombination>& combinations, std::ostream& out);
// "# combination 2 of 4: nccl_proto=LL": before a combination's table.
void print_combination_header(std::size_t index, std::size_t count,
                              const ReplayCombination& combination, std::ostream& out);
// The summary's lines: per row and for the window, the fastest combination against the first
// (the defaults when every axis has "default" first).
void print_combination_summary(const CombinationSummary& summary, const std::string& default_name,
                               std::ostream& out);
// "nccl_proto=LL: 12.1 [11.9, 12.4] us against 16.3 [16.0, 16.8] us, 1.35x faster" (", within
// noise" when the intervals overlap); "the first is fastest" when it is.
std::string choice_text(const CombinationChoice& choice);

// One line per op whose checked output was wrong: "rank 1: 12 elements of all_reduce seq 3 on
// communicator 0 (ranks 0,1) (nccl.vm.5974.log:85) differ from the expected values (op 7 of the
// rank)"; none when all were right (or nothing was checked).
std::vector<std::string> mismatch_lines(const WorkloadOps& workload, const ReplayFigures& figures);

// "123.4 [120.1, 130.2]": a median and its interval (the median alone without one).
std::string median_text(const TimeStats& time);

}  // namespace collbench::replay
