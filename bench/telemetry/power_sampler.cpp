// NVML sampling on a thread of its own (power_sampler.hpp).
#include "telemetry/power_sampler.hpp"

#include <cuda_runtime.h>

#include <string>

#include "telemetry/nvml_library.hpp"

namespace collbench {
namespace {

nvml::Device nvml_device(const nvml::Library& library, int cuda_device) {
  char bus_id[64] = {};
  if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, cuda_device) != cudaSuccess) {
    cudaGetLastError();  // no such GPU: no summary, not an error
    return nullptr;
  }
  return library.device(bus_id);
}

}  // namespace

struct PowerSampler::Sampling {
  struct Totals {
    nvml::Device device = nullptr;
    double mhz = 0;
    double watts = 0;
    unsigned long long reasons = 0;
    int samples = 0;
    double instant_watts = 0;
    int instant_samples = 0;
  };
  const nvml::Library* library = nullptr;
  std::vector<Totals> totals;  // per device; written by the sampling thread only until it stops
};

PowerSampler::PowerSampler(const std::vector<int>& devices, std::chrono::milliseconds period)
    : state_(new Sampling()), period_(period) {
  state_->library = nvml::Library::shared();
  for (int device : devices) {
    Sampling::Totals totals;
    if (state_->library) totals.device = nvml_device(*state_->library, device);
    state_->totals.push_back(totals);
  }
  if (!state_->library) return;
  thread_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stopping_) {
      sample_all();
      wake_.wait_for(lock, period_, [this] { return stopping_; });
    }
  });
}

PowerSampler::~PowerSampler() {
  stop();
}

void PowerSampler::sample_all() {
  for (Sampling::Totals& totals : state_->totals) {
    if (!totals.device) continue;
    const std::optional<unsigned> mhz = state_->library->sm_clock_mhz(totals.device);
    const std::optional<unsigned> milliwatts = state_->library->power_mw(totals.device);
    if (!mhz || !milliwatts) continue;
    totals.mhz += *mhz;
    totals.watts += *milliwatts / 1000.0;
    totals.reasons |= state_->library->clock_event_reasons(totals.device).value_or(0);
    ++totals.samples;
    if (const std::optional<unsigned> now_mw = state_->library->instant_power_mw(totals.device)) {
      totals.instant_watts += *now_mw / 1000.0;
      ++totals.instant_samples;
    }
  }
}

void PowerSampler::stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

std::vector<std::optional<PowerSummary>> PowerSampler::finish() {
  if (thread_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      sample_all();  // the pass's end, however short it was
    }
    stop();
  }
  std::vector<std::optional<PowerSummary>> summaries;
  for (const Sampling::Totals& totals : state_->totals) {
    if (totals.samples == 0) {
      summaries.emplace_back();
      continue;
    }
    PowerSummary summary{totals.mhz / totals.samples, totals.watts / totals.samples, totals.reasons,
                         totals.samples, std::nullopt};
    if (totals.instant_samples > 0)
      summary.instant_power_w = totals.instant_watts / totals.instant_samples;
    summaries.push_back(summary);
  }
  return summaries;
}

}  // namespace collbench
