// collbench_contend's command line: which fault to make, on what, for how long.
#pragma once

#include <optional>
#include <ostream>
#include <string>

namespace collbench::contend {

enum class Fault { sm_load, link_load, cpu_starve };
enum class SmKind { gemm, spin };

struct SmLoadOptions {
  int gpu = -1;
  SmKind kind = SmKind::gemm;
};

struct LinkLoadOptions {
  int src_gpu = -1;
  int dst_gpu = -1;
  bool both_directions = false;
};

struct CpuStarveOptions {
  std::optional<int> core;  // absent: the last core this process may run on
  int busy_threads = 4;
  // fair: busy threads under the ordinary scheduler, which lets a waking target in at once most
  // times. nice: the target's threads also lowered to nice 19 (any process may lower its own
  // user's), so the busy threads take about 98% of the core. realtime: SCHED_FIFO busy threads
  // that run 8 ms and sleep 2 ms, so the target runs only in those gaps (needs CAP_SYS_NICE).
  bool realtime = false;
  bool lower_target = false;
  int target_rank = -1;
  std::string target_process;  // empty: the process of rank target_rank (one process per GPU)
  double wait_s = 60;
};

struct ContendOptions {
  Fault fault = Fault::sm_load;
  SmLoadOptions sm;
  LinkLoadOptions link;
  CpuStarveOptions cpu;
  double duration_s = 0;  // 0: until SIGINT or SIGTERM
  std::string truth_path;
};

// Parses argv; writes --help to `out` and returns nullopt for it. Throws UsageError naming the
// bad value. GPU indices and the core are checked against the machine later, when it is probed.
std::optional<ContendOptions> parse_contend_options(int argc, const char* const* argv,
                                                    std::ostream& out);

}  // namespace collbench::contend
