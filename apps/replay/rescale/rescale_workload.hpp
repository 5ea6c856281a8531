// A workload for another rank count: when its communicators form a DP x TP grid
// (parallel_grid.hpp), the data-parallel replicas grow or shrink and the tensor-parallel groups
// stay whole. New rank d*T + t replays recorded rank (d mod D)*T + t, its ops rewritten by the
// rules of rescale_rules.hpp. The workload is streamed: once to check every op can be rescaled,
// then once per D recorded replicas the new ones need.
#pragma once

#include <string>

#include "rescale/parallel_grid.hpp"
#include "workload/workload_writer.hpp"

namespace collbench::replay {

struct RescaleOutcome {
  ParallelGrid grid;         // the recorded one
  int data_parallel_to = 0;  // D'
};

// Throws UsageError when the communicators are no grid, `world_size` is no multiple of the TP
// size, or an op cannot be rescaled (naming it), before anything is written.
RescaleOutcome rescale_workload(const std::string& path, int world_size, WorkloadWriter& writer);

}  // namespace collbench::replay
