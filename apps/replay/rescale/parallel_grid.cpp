// Grid detection: each communicator is the world, a TP block or a DP stride, with one T for all.
#include "rescale/parallel_grid.hpp"

#include <fmt/format.h>

#include <optional>

#include "core/errors.hpp"

namespace collbench::replay {
namespace {

bool is_world(const std::vector<int>& ranks, int world_size) {
  if (static_cast<int>(ranks.size()) != world_size) return false;
  for (int i = 0; i < world_size; ++i) {
    if (ranks[static_cast<std::size_t>(i)] != i) return false;
  }
  return true;
}

// Ranks first, first+step, ... in order.
bool is_progression(const std::vector<int>& ranks, int step) {
  for (std::size_t i = 1; i < ranks.size(); ++i) {
    if (ranks[i] != ranks[0] + static_cast<int>(i) * step) return false;
  }
  return true;
}

// A block of T = size consecutive ranks starting at a multiple of T.
bool is_block(const std::vector<int>& ranks) {
  const int size = static_cast<int>(ranks.size());
  return ranks[0] % size == 0 && is_progression(ranks, 1);
}

// A stride of D = size ranks t, t + T, ... with T = world / D.
bool is_stride(const std::vector<int>& ranks, int world_size) {
  const int size = static_cast<int>(ranks.size());
  if (world_size % size != 0) return false;
  const int step = world_size / size;
  return ranks[0] < step && is_progression(ranks, step);
}

[[noreturn]] void not_a_grid(const CommunicatorTable& communicators, int id,
                             const std::string& why) {
  throw UsageError(fmt::format("not a data-parallel x tensor-parallel grid: {} {}",
                               communicators.describe(id), why));
}

// T, from the communicators that can only be TP blocks or only DP strides.
int tensor_parallel_size(const CommunicatorTable& communicators, int world_size) {
  std::optional<int> size;
  std::optional<int> decided_by;
  for (int id = 0; id < communicators.count(); ++id) {
    const std::vector<int>& ranks = communicators.at(id).ranks;
    if (ranks.size() == 1 || is_world(ranks, world_size)) continue;
    const bool block = is_block(ranks);
    const bool stride = is_stride(ranks, world_size);
    if (!block && !stride) {
      not_a_grid(communicators, id,
                 "is neither a block of consecutive ranks (tensor-parallel) nor "
                 "an even stride (data-parallel)");
    }
    const int t =
        block ? static_cast<int>(ranks.size()) : world_size / static_cast<int>(ranks.size());
    if (size && *size != t) {
      not_a_grid(communicators, id,
                 fmt::format("implies {} ranks per tensor-parallel group, {} "
                             "implies {}",
                             t, communicators.describe(*decided_by), *size));
    }
    size = t;
    decided_by = id;
  }
  return size.value_or(1);
}

}  // namespace

ParallelGrid find_parallel_grid(const CommunicatorTable& communicators, int world_size) {
  ParallelGrid grid;
  grid.world_size = world_size;
  grid.tensor_parallel = tensor_parallel_size(communicators, world_size);
  grid.data_parallel = world_size / grid.tensor_parallel;
  const int t_size = grid.tensor_parallel;
  for (int id = 0; id < communicators.count(); ++id) {
    const std::vector<int>& ranks = communicators.at(id).ranks;
    const int size = static_cast<int>(ranks.size());
    if (is_world(ranks, world_size)) {
      grid.places.push_back({GridRole::world, 0});
    } else if (size == t_size && is_block(ranks)) {
      grid.places.push_back({GridRole::tensor_parallel, ranks[0] / t_size});
    } else if (size == grid.data_parallel && is_stride(ranks, world_size)) {
      grid.places.push_back({GridRole::data_parallel, ranks[0]});
    } else {
      not_a_grid(communicators, id,
                 fmt::format("fits no group of the {} x {} grid", grid.data_parallel, t_size));
    }
  }
  return grid;
}

}  // namespace collbench::replay
