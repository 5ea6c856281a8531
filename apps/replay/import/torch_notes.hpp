// What the PyTorch sources (profiler traces, Flight Recorder) leave out, said once per op kind in
// the workload's header as the importers meet it.
#pragma once

#include "import/import_options.hpp"
#include "import/import_session.hpp"
#include "import/torch_names.hpp"

namespace collbench::replay {

// The reduction of a reducing op: --redop, else sum, with the assumption noted for its kind.
ReduceOp assumed_reduction(ReplayOp op, const ImportOptions& options, const std::string& source,
                           ImportSession& session);

// How NCCL's count was taken from the recorded element totals, for `collective`'s kind.
void note_count_rule(const TorchCollective& collective, ImportSession& session);

}  // namespace collbench::replay
