// Whether a workload's communicators form a regular grid of data-parallel (DP) replicas of
// tensor-parallel (TP) groups, and each communicator's place in it: with T ranks per TP group and
// D = world / T replicas, global rank r is replica d = r / T, TP rank t = r % T; a TP group is the
// block d*T .. d*T+T-1, a DP group the stride t, t+T, ..., the world all ranks in order. A
// workload with the world alone is the grid T = 1.
#pragma once

#include <vector>

#include "workload/communicator_table.hpp"

namespace collbench::replay {

enum class GridRole { world, tensor_parallel, data_parallel };

struct GridPlace {
  GridRole role = GridRole::world;
  int index = 0;  // tensor_parallel: its replica d; data_parallel: its TP rank t
};

struct ParallelGrid {
  int world_size = 0;
  int tensor_parallel = 1;        // T
  int data_parallel = 0;          // D
  std::vector<GridPlace> places;  // per communicator id
};

// Throws UsageError saying which communicator breaks the grid, and how.
ParallelGrid find_parallel_grid(const CommunicatorTable& communicators, int world_size);

}  // namespace collbench::replay
