// --cpu-starve: busy threads on one core, and the target rank's threads pinned to that core for
// as long as the session runs.
#pragma once

#include "contend_options.hpp"
#include "load_session.hpp"

namespace collbench::contend {

void run_cpu_starve(const CpuStarveOptions& options, LoadSession& session);

}  // namespace collbench::contend
