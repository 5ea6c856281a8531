// The PyTorch profiler (Kineto) importer: one trace per rank (export_chrome_trace, .json or
// .json.gz), each read twice, one at a time: first for the process groups, ranks and the earliest
// instant; then rank by rank for the ops.
#pragma once

#include <string>
#include <vector>

#include "import/import_options.hpp"
#include "workload/workload_writer.hpp"

namespace collbench::replay {

void import_kineto(const std::vector<std::string>& paths, const ImportOptions& options,
                   WorkloadWriter& writer);

}  // namespace collbench::replay
