// The replay's --json: the run (what was replayed, where, with which NCCL recorded and replayed,
// how), the figures per communicator and op and per rank, and every op's columns (op_columns.hpp).
#pragma once

#include <nlohmann/json.hpp>

#include "plan/replay_figures.hpp"
#include "report/replay_run_info.hpp"

namespace collbench::replay {

nlohmann::json replay_json(const WorkloadOps& workload, const ReplayFigures& figures,
                           const ReplayRunInfo& info);

}  // namespace collbench::replay
