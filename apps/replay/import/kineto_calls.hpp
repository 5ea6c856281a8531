// One rank's record_param_comms calls as imported ops, in issue order: the collective and its
// process group, data type, NCCL's count (per-peer counts for all_to_all with splits), root or
// peer, GPU times and stream from its kernel; a batch of calls that share one kernel, closed by
// an "nccl:coalesced" range, is one group.
#pragma once

#include <vector>

#include "import/import_options.hpp"
#include "import/import_session.hpp"
#include "import/imported_op.hpp"
#include "import/kineto_trace.hpp"

namespace collbench::replay {

// Registers the process groups with the session as it meets them. Throws UsageError naming the
// event for a value it cannot use.
std::vector<ImportedOp> kineto_rank_ops(const KinetoTrace& trace, const ImportOptions& options,
                                        ImportSession& session);

}  // namespace collbench::replay
