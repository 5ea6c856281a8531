// The Flight Recorder importer: one dump per rank, each read three times, one at a time: for the
// process groups and the ring buffers' windows, for the assumptions (what each op kind lacks),
// then rank by rank for the ops. A dump holds the last TORCH_FR_BUFFER_SIZE entries at most.
#pragma once

#include <string>
#include <vector>

#include "import/import_options.hpp"
#include "workload/workload_writer.hpp"

namespace collbench::replay {

void import_flight_recorder(const std::vector<std::string>& paths, const ImportOptions& options,
                            WorkloadWriter& writer);

}  // namespace collbench::replay
