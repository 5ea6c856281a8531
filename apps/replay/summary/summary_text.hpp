// The summary command's text: where the workload came from and what was assumed, its
// communicators, and a table of calls, bytes and recorded GPU time per communicator and op.
#pragma once

#include <ostream>

#include "summary/workload_summary.hpp"

namespace collbench::replay {

void print_summary(const WorkloadSummary& summary, std::ostream& out);

}  // namespace collbench::replay
