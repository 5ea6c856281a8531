// How `collbench_replay run` replays a workload: iterations, the recorded gaps, the check, the
// deadline of each iteration, and the combination of communicator settings (NCCL's environment
// and config, buffer registration) of this replay.
#pragma once

#include "plan/replay_combinations.hpp"

namespace collbench::replay {

struct ReplaySettings {
  int warmup = 5;                 // untimed iterations of the whole window first
  int iters = 20;                 // timed iterations of the whole window
  bool check = false;             // one more, untimed iteration with checked values
  bool gaps = false;              // the recorded gaps between a stream's ops kept as GPU delays
  double timeout_s = 300;         // an iteration not done by then is a timeout
  ReplayCombination combination;  // NCCL's defaults, unregistered buffers unless set
};

}  // namespace collbench::replay
