// What a replay's reports say about the run beside the figures: where it ran (the replaying NCCL
// among it), how (iterations, gaps, check, processes) and when the start gate held.
#pragma once

#include <string>

#include "reports/report_row.hpp"

namespace collbench::replay {

struct ReplayRunInfo {
  report::RunOrigin origin;  // origin.nccl_version: the NCCL that replayed
  int warmup = 0;
  int iters = 0;
  bool gaps = false;
  bool check = false;
  // Whether every iteration's start was gated (every rank of a host starting together); why not
  // otherwise ("no warm-up", ...).
  bool gated = false;
  std::string ungated_reason;
};

}  // namespace collbench::replay
