// collbench_replay's subcommands, each from parsed options to its output: import writes a
// workload, check refuses or passes one (made in passing from sources when given those), rescale
// writes one for another rank count (checking both), summary prints one's totals.
#pragma once

#include <ostream>

#include "cli/replay_options.hpp"

namespace collbench::replay {

// Throws UsageError for bad input or a refused workload (exit status 2).
void run_replay_command(const ReplayOptions& options, std::ostream& out);

}  // namespace collbench::replay
