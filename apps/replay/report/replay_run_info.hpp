// What a replay's reports say about the run beside the figures: where it ran (the replaying NCCL
// among it), how (iterations, gaps, check, processes) and when the start gate held.
#pragma once

#include <string>

#include "reports/report_row.hpp"

namespace collbench::replay {

struct ReplayRunInfo {
  std::string workload_name;  // what the rows' config names it by (report/replay_rows.hpp)
  report::RunOrigin origin;   // origin.nccl_version: the NCCL that replayed
  int warmup = 0;
  int iters = 0;
  bool gaps = false;
  bool check = false;
  // The combination's settings the rows were replayed under (NCCL_ALGO, ..., the registration),
  // in the config column's form ("nccl_algo=Ring;register=local": ReplayCombination::config), as
  // collbench writes them; empty at NCCL's defaults.
  std::string nccl_config;
  // Whether every iteration's start was gated (every rank of a host starting together); why not
  // otherwise ("no warm-up", ...).
  bool gated = false;
  std::string ungated_reason;
  // "": the ops' times are their kernels' (a kernel trace); else why CUDA events around each step
  // time them ("cuptiSubscribe: ...": another profiler holds CUPTI).
  std::string no_kernel_trace;
};

}  // namespace collbench::replay
