// collbench_replay's subcommands, each from parsed options to its output: import writes a
// workload, check refuses or passes one (made in passing from sources when given those), rescale
// writes one for another rank count (checking both), summary prints one's totals; and the
// workload `run` replays on GPUs, checked before any GPU work.
#pragma once

#include <ostream>

#include "cli/replay_options.hpp"
#include "plan/workload_ops.hpp"

namespace collbench::replay {

// Throws UsageError for bad input or a refused workload (exit status 2).
void run_replay_command(const ReplayOptions& options, std::ostream& out);

// `run`'s workload: the one named, or one imported in passing from the sources, checked
// (check_workload: a refused one throws UsageError) and read whole.
WorkloadOps checked_replay_workload(const ReplayOptions& options);

}  // namespace collbench::replay
