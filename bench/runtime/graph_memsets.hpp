// Rewrites a captured graph's memset nodes as kernel nodes (kernels/memset_kernel.hpp says why):
// libraries such as cuBLASLt zero a few bytes before some kernels, and under capture that becomes
// a memset node between two kernels.
#pragma once

#include <cstddef>

#include "runtime/cuda_resources.hpp"

namespace collbench {

// Replaces every memset node of `graph` that writes the graph's own device memory and waits on
// plain edges with a kernel node writing the same bytes, with the same dependencies and
// dependents, and the highest launch priority of the kernels that wait on it. Returns how many
// nodes it replaced. Call before instantiating.
std::size_t memsets_to_kernels(const Graph& graph);

}  // namespace collbench
