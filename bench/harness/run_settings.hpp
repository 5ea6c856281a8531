// How each case is measured: iterations, graphs, checks, seed, timeout (and test-only faults).
#pragma once

#include <cstdint>

namespace collbench {

// Test-only faults (hidden --inject-fault): each must be caught the way a real one would be.
enum class FaultInjection {
  none,
  corrupt_output,   // one output element changed after the checked collective: #wrong must be 1
  skip_rank,        // the last rank skips one timed collective: the others hang until the timeout
  fail_allocation,  // buffer allocation reports out-of-memory: status oom, the sweep goes on
};

struct RunSettings {
  int warmup_iters = 5;
  int iters = 20;
  int agg_iters = 1;
  int graph_replays = 0;
  bool check = true;
  std::uint64_t seed = 0x5EED;
  double timeout_s = 300.0;
  FaultInjection fault = FaultInjection::none;
};

}  // namespace collbench
