// A few host values all-reduced across every rank of NCCL communicators, wherever the ranks run
// (all in this process, or one per process): step times, losses, counts, agreement flags and
// barriers. Bookkeeping outside timing and graph capture, never measured traffic.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/algorithm.hpp"

namespace collbench {

// Each rank this process drives (`per_rank` index-aligned with `ranks`) contributes its values;
// every rank of every process gets the same result. The all-reduces of the local ranks form one
// NCCL group on their streams; `wait_until_done` must return once those streams are idle, and if
// they never get there it must abort the communicators before it throws (the scratch buffers are
// freed on the way out, and freeing waits for the kernels using them). Collective: every rank
// calls it with the same length, type and operation, in the same order as its other collectives
// on that communicator. Defined for double, std::uint64_t, std::int32_t and std::uint8_t.
template <typename Value>
std::vector<Value> all_reduce_host_values(const std::vector<RankContext>& ranks,
                                          const std::vector<std::vector<Value>>& per_rank,
                                          ncclRedOp_t op,
                                          const std::function<void()>& wait_until_done);

// Whether every rank of every process passed `ok`: a flag per rank of `ranks`, min-reduced as
// all_reduce_host_values does it (collective alike).
bool all_ranks_agree(const std::vector<RankContext>& ranks, bool ok,
                     const std::function<void()>& wait_until_done);

}  // namespace collbench
