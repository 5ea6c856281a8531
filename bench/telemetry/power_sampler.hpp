// What state the GPUs ran a measured pass in: their SM clock, power draw and clock-event reasons
// (power cap, thermal...), sampled through NVML on a thread of its own. An H200 under sustained
// load reaches its power cap about a second in and its SM clock falls by up to a fifth, so a
// step time means little without it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace collbench {

struct PowerSummary {
  double sm_mhz = 0;  // mean over the samples
  // Mean over the samples of NVML's power reading, which on recent GPUs is itself a mean over
  // about the last second: it trails a short pass.
  double power_w = 0;
  unsigned long long clock_events = 0;  // every sample's NVML clock-event reasons, or-ed
  int samples = 0;
  // Mean over the samples of the instantaneous power (NVML_FI_DEV_POWER_INSTANT): the pass's own;
  // none where the driver does not give it.
  std::optional<double> instant_power_w;
};

// Samples `devices` (CUDA ordinals) every `period` from construction until finish(). Without
// NVML, or for a device NVML does not find, that device gets no summary; it never throws for it.
class PowerSampler {
 public:
  PowerSampler(const std::vector<int>& devices, std::chrono::milliseconds period);
  ~PowerSampler();
  PowerSampler(const PowerSampler&) = delete;
  PowerSampler& operator=(const PowerSampler&) = delete;

  // Stops sampling (one last sample first); one entry per device, nullopt where none was taken.
  std::vector<std::optional<PowerSummary>> finish();

 private:
  struct Sampling;
  void sample_all();
  void stop();

  std::unique_ptr<Sampling> state_;
  std::chrono::milliseconds period_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace collbench
