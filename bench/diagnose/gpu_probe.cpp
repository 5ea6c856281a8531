// The local copy and NVML readings of each GPU.
#include "gpu_probe.hpp"

#include "copy_kernels.hpp"
#include "core/errors.hpp"
#include "statistics.hpp"
#include "telemetry/nvml_library.hpp"

namespace collbench::diagnose {
namespace {

std::string pci_bus_id(int device) {
  char bus_id[32] = {};
  CB_CUDA_CHECK(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device));
  return bus_id;
}

void read_nvml(int device, GpuFigures& figures) {
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
}

}  // namespace

std::vector<GpuFigures> probe_local_gpus(Runner::RankSet& set, const GpuProbeSettings& settings) {
  const int locals = set.size();
  std::vector<DeviceBuffer> sources, destinations;
  std::vector<int> blocks(locals);
  for (int local = 0; local < locals; ++local) {
    const RankContext& rank = set.contexts()[local];
    ScopedDevice on(rank.device, rank.rank);
    sources.emplace_back(rank.device, settings.bytes);
    destinations.emplace_back(rank.device, settings.bytes);
    int sms = 0;
    CB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, rank.device));
    blocks[local] = sms * link_peak::pull_copy_blocks_per_sm();
  }
  TimedWork work;
  work.takes_part.assign(locals, true);
  work.warmup = settings.warmup;
  work.iterations = settings.iterations;
  work.timeout_s = settings.timeout_s;
  work.what = "the local copy of every GPU";
  settings.faults.apply_to(work);
  work.launch = [&](int local, bool) {
    link_peak::launch_pull_copy(destinations[local].get(), sources[local].get(), settings.bytes, blocks[local],
                                set.contexts()[local].stream);
    CB_CHECK_LAUNCH();
    return true;
  };
  // NVML is read right after the copies, while the GPU still runs at its working clock.
  std::vector<GpuFigures> figures(locals);
  const std::vector<RankTimes> times = time_on_ranks(set, work);
  for (int local = 0; local < locals; ++local) {
    const RankContext& rank = set.contexts()[local];
    GpuFigures& f = figures[local];
    f.rank = rank.rank;
    const double us = stats::median(times[local].duration_us);
    f.copy_gbps = us > 0 ? static_cast<double>(settings.bytes) / (us * 1e-6) / 1e9 : 0;
    read_nvml(rank.device, f);
  }
  return figures;
}

}  // namespace collbench::diagnose
