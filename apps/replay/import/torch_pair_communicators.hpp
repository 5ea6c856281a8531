// PyTorch's ProcessGroupNCCL sends a single send or recv (outside batch_isend_irecv) over an NCCL
// communicator of its two ranks, made on first use when the group has no bound device; only
// batches and collectives use the group's own communicator. The NCCL log shows those pair
// communicators; Kineto and Flight Recorder name only the process group, so their importers move
// such ops onto a communicator of the pair, as the job ran them. On the group's communicator they
// would queue behind each other and behind its collectives, which the job's did not.
#pragma once

#include <vector>

#include "import/import_session.hpp"
#include "import/imported_op.hpp"

namespace collbench::replay {

// Moves every send and recv of `ops` that is in no group onto the communicator of its two ranks
// (added to `session` when new; ranks in ascending order, as PyTorch numbers them), and notes it.
void move_single_point_to_point_to_pairs(std::vector<ImportedOp>& ops, ImportSession& session);

}  // namespace collbench::replay
