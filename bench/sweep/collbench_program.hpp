// One collbench invocation after parsing: plan, header, runner, sinks, Google Benchmark, summary.
#pragma once

#include "sweep/options.hpp"

namespace collbench {

struct SessionFlags {
  bool listing = false;                  // --list: names only, no GPU
  bool google_benchmark_display = false;  // the user chose --benchmark_format: let GB print too
};

// Returns the process exit status: 0 all ok, 1 wrong results or failed cases, 3 timeout,
// 128 + signal when interrupted. Throws UsageError on bad input.
int run_session(const Options& options, const SessionFlags& flags);

}  // namespace collbench
