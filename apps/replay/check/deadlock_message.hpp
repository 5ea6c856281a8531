// The one line naming a deadlock: which rank issues which op before which other, with each op's
// place in the workload (and its source), from a cycle of the dependency graph.
#pragma once

#include <string>
#include <vector>

#include "check/dependency_graph.hpp"
#include "workload/communicator_table.hpp"

namespace collbench::replay {

// Reads the workload again to find the ops' lines (this runs once, on the error path).
std::string describe_deadlock(const std::vector<DependencyEdge>& cycle,
                              const DependencyGraph& graph, const CommunicatorTable& communicators,
                              const std::string& path, bool source_first);

}  // namespace collbench::replay
