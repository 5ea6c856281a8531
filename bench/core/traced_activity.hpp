// One kernel, copy or memset as a GPU trace records it (telemetry/kernel_trace.hpp makes them),
// here so that logic reading traces needs no GPU layer.
#pragma once

#include <cstdint>

namespace collbench {

struct TracedActivity {
  // The tag around the call that launched it (for a graph's nodes, around the graph's launch);
  // 0: none.
  std::uint64_t launch_tag = 0;
  // A graph node's: the tag around its capture; 0 outside graphs or untagged.
  std::uint64_t node_tag = 0;
  // The trace's clock, in ns: one clock for every GPU of the process.
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
};

}  // namespace collbench
