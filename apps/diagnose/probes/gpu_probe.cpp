// The sustained local copy and NVML readings of each GPU.
#include "probes/gpu_probe.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <utility>

#include "core/errors.hpp"
#include "probes/compute_kernel.hpp"
#include "pull_copy.hpp"
#include "reports/statistics.hpp"
#include "telemetry/nvml_library.hpp"

namespace collbench::diagnose {
namespace {

// Bounds the window's launches (and events) whatever the copy's speed.
constexpr int kMaxWindowCopies = 4000;

std::string pci_bus_id(int device) {
  char bus_id[32] = {};
  CB_CUDA_CHECK(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device));
  return bus_id;
}

void read_nvml(int device, const std::vector<unsigned>& run_pids, GpuFigures& figures) {
  const nvml::Library* library = nvml::Library::shared();
  if (!library) return;
  const nvml::Device handle = library->device(pci_bus_id(device));
  if (!handle) return;
  if (auto mhz = library->sm_clock_mhz(handle)) figures.sm_clock_mhz = *mhz;
  if (auto mhz = library->max_sm_clock_mhz(handle)) figures.max_sm_clock_mhz = *mhz;
  if (auto milliwatts = library->power_mw(handle)) figures.power_w = *milliwatts / 1000.0;
  figures.clock_event_reasons = library->clock_event_reasons(handle);
  figures.ecc_uncorrected = library->ecc_errors(handle, true);
  figures.ecc_corrected = library->ecc_errors(handle, false);
  figures.nvlink_replay = library->nvlink_errors(handle, 0);
  figures.nvlink_recovery = library->nvlink_errors(handle, 1);
  figures.nvlink_crc = library->nvlink_errors(handle, 2);
  if (auto pids = library->compute_process_ids(handle)) {
    figures.other_processes =
        static_cast<unsigned>(std::count_if(pids->begin(), pids->end(), [&](unsigned pid) {
          return std::find(run_pids.begin(), run_pids.end(), pid) == run_pids.end();
        }));
  }
}

// Each local rank's buffers and block counts for the two kernels of the probe.
struct LocalWork {
  std::vector<DeviceBuffer> sources, destinations, sinks;
  std::vector<int> copy_blocks, compute_blocks;

  LocalWork(const Runner::RankSet& set, std::size_t bytes) {
    for (const RankContext& rank : set.contexts()) {
      ScopedDevice on(rank.device, rank.rank);
      sources.emplace_back(rank.device, bytes);
      destinations.emplace_back(rank.device, bytes);
      int sms = 0;
      CB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, rank.device));
      int copy_blocks_per_sm = 0;
      CB_CUDA_CHECK(kernels::pull_copy_blocks_per_sm(&copy_blocks_per_sm));
      copy_blocks.push_back(sms * copy_blocks_per_sm);
      compute_blocks.push_back(sms * compute_blocks_per_sm());
      sinks.emplace_back(rank.device, sizeof(float) * kComputeThreads * compute_blocks.back());
    }
  }
};

// One kernel run back to back for a window on every probed local rank: per local rank the
// launches' durations and the window's span (both empty for a rank not probed).
std::vector<RankTimes> sustained(Runner::RankSet& set, const GpuProbeSettings& settings,
                                 const std::vector<bool>& probed, const char* what,
                                 std::function<void(int local)> launch) {
  TimedWork work;
  work.takes_part = probed.empty() ? std::vector<bool>(set.size(), true) : probed;
  work.warmup = settings.warmup;
  work.timeout_s = settings.timeout_s;
  work.what = what;
  settings.faults.apply_to(work);
  work.launch = [&launch](int local, bool) {
    launch(local);
    return true;
  };
  // A few launches tell how long one takes; the window then holds enough of them, on every GPU of
  // this process alike (its slowest GPU's estimate sets the count, so a slow one is not measured
  // for less; each process counts for its own GPUs).
  work.iterations = 3;
  double longest_us = 0;
  for (const RankTimes& times : time_on_ranks(set, work)) {
    if (times.took_part) longest_us = std::max(longest_us, stats::median(times.duration_us));
  }
  const double in_window = std::ceil(settings.window_ms * 1000.0 / std::max(longest_us, 1.0));
  work.iterations = static_cast<int>(std::clamp(in_window, 5.0, double{kMaxWindowCopies}));
  work.warmup = 0;
  return time_on_ranks(set, work);
}

// Units per second over the whole window, and the launches' own relative spread.
std::pair<double, double> rate_of(const RankTimes& times, double units_per_launch) {
  const double units = units_per_launch * static_cast<double>(times.duration_us.size());
  return {times.span_us > 0 ? units / (times.span_us * 1e-6) : 0,
          relative_spread(times.duration_us)};
}

}  // namespace

std::vector<GpuFigures> probe_local_gpus(Runner::RankSet& set, const GpuProbeSettings& settings,
                                         const std::vector<bool>& probed) {
  LocalWork local_work(set, settings.bytes);
  const std::vector<RankTimes> copies =
      sustained(set, settings, probed, "the local copy of every GPU", [&](int local) {
        CB_CUDA_CHECK(kernels::launch_pull_copy(
            local_work.destinations[local].get(), local_work.sources[local].get(), settings.bytes,
            local_work.copy_blocks[local], set.contexts()[local].stream));
      });
  const std::vector<RankTimes> computes =
      sustained(set, settings, probed, "the arithmetic of every GPU", [&](int local) {
        launch_compute(local_work.sinks[local].as<float>(), local_work.compute_blocks[local],
                       set.contexts()[local].stream);
      });
  // NVML is read right after the probe, while the GPU still runs at its working clock.
  std::vector<GpuFigures> figures(set.size());
  for (int local = 0; local < set.size(); ++local) {
    GpuFigures& f = figures[local];
    f.rank = -1;
    if (!copies[local].took_part) continue;
    const RankContext& rank = set.contexts()[local];
    f.rank = rank.rank;
    const auto [bytes_per_s, copy_spread] =
        rate_of(copies[local], static_cast<double>(settings.bytes));
    f.copy_gbps = bytes_per_s / 1e9;
    f.copy_spread = copy_spread;
    const auto [flops_per_s, compute_spread] =
        rate_of(computes[local], compute_flops_per_launch(local_work.compute_blocks[local]));
    f.compute_tflops = flops_per_s / 1e12;
    f.compute_spread = compute_spread;
    read_nvml(rank.device, settings.run_pids, f);
  }
  return figures;
}

}  // namespace collbench::diagnose
