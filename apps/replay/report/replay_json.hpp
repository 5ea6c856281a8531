// The replay's --json: the run (what was replayed, where, with which NCCL recorded and replayed,
// how), per combination of the swept settings its figures per communicator and op and per rank and
// every op's columns (op_columns.hpp), then the summary: the fastest combination per row and for
// the window.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "plan/combination_summary.hpp"
#include "report/replay_run_info.hpp"

namespace collbench::replay {

// `runs`: every combination's, in order (at least one).
nlohmann::json replay_json(const WorkloadOps& workload, const std::vector<CombinationRun>& runs,
                           const ReplayRunInfo& info);

}  // namespace collbench::replay
