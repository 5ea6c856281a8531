// The sustained local copy and NVML readings of each GPU.
#include "gpu_probe.hpp"

#include <algorithm>
#include <cmath>

#include "copy_kernels.hpp"
#include "core/errors.hpp"
#include "statistics.hpp"
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

// The local copy as timed work: each local rank copies its own buffers.
struct LocalCopies {
  std::vector<DeviceBuffer> sources, destinations;
  std::vector<int> blocks;

  LocalCopies(const Runner::RankSet& set, std::size_t bytes) {
    for (const RankContext& rank : set.contexts()) {
      ScopedDevice on(rank.device, rank.rank);
      sources.emplace_back(rank.device, bytes);
      destinations.emplace_back(rank.device, bytes);
      int sms = 0;
      CB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, rank.device));
      blocks.push_back(sms * link_peak::pull_copy_blocks_per_sm());
    }
  }
};

TimedWork copy_work(Runner::RankSet& set, const GpuProbeSettings& settings, LocalCopies& copies,
                    const std::vector<bool>& probed) {
  TimedWork work;
  work.takes_part = probed.empty() ? std::vector<bool>(set.size(), true) : probed;
  work.warmup = settings.warmup;
  work.timeout_s = settings.timeout_s;
  work.what = "the local copy of every GPU";
  settings.faults.apply_to(work);
  work.launch = [&set, &copies, bytes = settings.bytes](int local, bool) {
    link_peak::launch_pull_copy(copies.destinations[local].get(), copies.sources[local].get(),
                                bytes, copies.blocks[local], set.contexts()[local].stream);
    return true;
  };
  return work;
}

}  // namespace

std::vector<GpuFigures> probe_local_gpus(Runner::RankSet& set, const GpuProbeSettings& settings,
                                         const std::vector<bool>& probed) {
  LocalCopies copies(set, settings.bytes);
  TimedWork work = copy_work(set, settings, copies, probed);
  // A few copies tell how long one takes; the window then holds enough of them, on every GPU of
  // this process alike (its slowest GPU's estimate sets the count, so a slow one is not measured
  // for less; each process counts for its own GPUs).
  work.iterations = 3;
  double longest_us = 0;
  for (const RankTimes& times : time_on_ranks(set, work)) {
    if (times.took_part) longest_us = std::max(longest_us, stats::median(times.duration_us));
  }
  const double copies_in_window =
      std::ceil(settings.window_ms * 1000.0 / std::max(longest_us, 1.0));
  work.iterations = static_cast<int>(std::clamp(copies_in_window, 5.0, double{kMaxWindowCopies}));
  work.warmup = 0;
  const std::vector<RankTimes> times = time_on_ranks(set, work);
  // NVML is read right after the copies, while the GPU still runs at its working clock.
  std::vector<GpuFigures> figures(set.size());
  for (int local = 0; local < set.size(); ++local) {
    GpuFigures& f = figures[local];
    f.rank = -1;
    if (!times[local].took_part) continue;
    const RankContext& rank = set.contexts()[local];
    f.rank = rank.rank;
    const double bytes = static_cast<double>(settings.bytes) * work.iterations;
    f.copy_gbps = times[local].span_us > 0 ? bytes / (times[local].span_us * 1e-6) / 1e9 : 0;
    f.copy_spread = relative_spread(times[local].duration_us);
    read_nvml(rank.device, settings.run_pids, f);
  }
  return figures;
}

}  // namespace collbench::diagnose
