// The NCCL log importer: one log per process (NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=INIT,COLL and
// NCCL_DEBUG_FILE=...%h.%p.log), read twice line by line: first the INIT lines (communicators,
// ranks), the version and NCCL_* settings; then each process's op lines in global rank order.
#pragma once

#include <string>
#include <vector>

#include "import/import_options.hpp"
#include "workload/workload_writer.hpp"

namespace collbench::replay {

void import_nccl_logs(const std::vector<std::string>& paths, const ImportOptions& options,
                      WorkloadWriter& writer);

}  // namespace collbench::replay
