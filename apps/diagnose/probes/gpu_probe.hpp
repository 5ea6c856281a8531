// Each GPU alone: its local copy bandwidth through an SM kernel, sustained over a window of back-
// to-back copies long enough that time the GPU gives another process's work counts (so a GPU
// whose SMs are taken, by this run or by another program, is slow here too); its SM clock against
// its maximum, NVML's clock-event reasons, power, ECC and NVLink error counters, and the other
// processes NVML sees at work on it.
#pragma once

#include <cstddef>
#include <vector>

#include "probes/rank_timing.hpp"
#include "verdict/figures.hpp"

namespace collbench::diagnose {

struct GpuProbeSettings {
  std::size_t bytes = std::size_t{256} << 20;
  double window_ms = 50;  // at least this long of copies back to back
  int warmup = 2;
  double timeout_s = 30;
  // The process ids of this run (every rank's), which NVML's process list leaves out of
  // "other processes".
  std::vector<unsigned> run_pids;
  ProbeFaults faults;
};

// One GpuFigures per local rank: measured where `probed` is true (everywhere when empty), rank -1
// elsewhere (so that every process contributes one record to a gather).
std::vector<GpuFigures> probe_local_gpus(Runner::RankSet& set, const GpuProbeSettings& settings,
                                         const std::vector<bool>& probed = {});

}  // namespace collbench::diagnose
