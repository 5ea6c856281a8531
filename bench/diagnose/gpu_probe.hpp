// Each GPU alone: its local copy bandwidth through an SM kernel (so a GPU whose SMs are taken is
// slow here too), its SM clock against its maximum, NVML's clock-event reasons, power, and its
// ECC and NVLink error counters where NVML exposes them.
#pragma once

#include <cstddef>
#include <vector>

#include "figures.hpp"
#include "rank_timing.hpp"

namespace collbench::diagnose {

struct GpuProbeSettings {
  std::size_t bytes = std::size_t{256} << 20;
  int warmup = 2;
  int iterations = 5;
  double timeout_s = 30;
  ProbeFaults faults;
};

// One GpuFigures per local rank.
std::vector<GpuFigures> probe_local_gpus(Runner::RankSet& set, const GpuProbeSettings& settings);

}  // namespace collbench::diagnose
