// One rank's Flight Recorder entries as imported ops, in issue order: the collective and its
// process group, data type and NCCL's count from the tensor shapes, the peer of a send or recv
// from its name ("nccl:send 0->1"), the members of a coalesced batch (sharing one p2p_seq_id,
// closed by an "nccl:coalesced" entry) as one group; entries before the window every rank shares
// (ring_windows.hpp) left out.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "import/flight_recorder_dump.hpp"
#include "import/import_options.hpp"
#include "import/import_session.hpp"
#include "import/imported_op.hpp"

namespace collbench::replay {

// `window_start`: per process group, the first epoch kept (a group missing from it: none).
std::vector<ImportedOp> flight_recorder_rank_ops(
    const FlightRecorderDump& dump, const std::map<std::string, std::int64_t>& window_start,
    const ImportOptions& options, ImportSession& session);

// "process group NAME": the communicator key of a process group.
std::string process_group_key(const std::string& name);

}  // namespace collbench::replay
