// NVML, opened at run time with dlopen (nvml_library.cpp): collbench builds without nvml.h and
// does not link libnvidia-ml, which comes with the driver, so a machine without one still runs
// the CPU tests. Topology (topology.cpp) reads NVLinks through it, and PowerSampler the GPUs'
// clocks and power.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace collbench::nvml {

// The few NVML declarations used, written from nvml.h (API version 11+).
using Return = int;  // nvmlReturn_t; 0 is NVML_SUCCESS
struct DeviceOpaque;
using Device = DeviceOpaque*;       // nvmlDevice_t
constexpr unsigned kMaxLinks = 18;  // NVML_NVLINK_MAX_LINKS
constexpr int kRemoteGpu = 0;       // NVML_NVLINK_DEVICE_TYPE_GPU
constexpr int kRemoteSwitch = 2;    // NVML_NVLINK_DEVICE_TYPE_SWITCH

// libnvidia-ml.so.1, opened and initialised; shut down and closed on destruction.
class Library {
 public:
  // The process's one NVML session, opened on first use and kept until exit (nvmlInit takes
  // milliseconds, and measured passes start often). Null when the library, its init, shutdown or
  // device lookup is missing, or init fails. The other entry points are optional: each query
  // says "unknown" when its function is missing.
  static const Library* shared();
  ~Library();
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  // Whether this driver's NVML reads NVLink state and remote PCI ids (topology needs both).
  bool reads_nvlinks() const;
  std::string driver_version() const;  // "" when unknown
  // The device with PCI bus id `bus_id` (either "0000:18:00.0" or "00000000:18:00.0"), or null.
  Device device(const std::string& bus_id) const;
  bool link_active(Device device, unsigned link) const;
  std::string remote_bus_id(Device device, unsigned link) const;  // "" when unknown
  int remote_type(Device device, unsigned link) const;  // NVML_NVLINK_DEVICE_TYPE_*, -1 unknown
  std::optional<unsigned> sm_clock_mhz(Device device) const;
  // nvmlDeviceGetPowerUsage: on recent GPUs a mean over about the last second, so it lags a
  // short pass.
  std::optional<unsigned> power_mw(Device device) const;
  // The NVML_FI_DEV_POWER_INSTANT field (nvmlDeviceGetFieldValues): the power now, refreshed
  // some 50 times a second (Hopper and later drivers).
  std::optional<unsigned> instant_power_mw(Device device) const;
  // nvmlDeviceGetCurrentClocksEventReasons (once "throttle reasons"): bit 0x4 is the software
  // power cap, 0x1 idle.
  std::optional<unsigned long long> clock_event_reasons(Device device) const;
  // nvmlDeviceGetMaxClockInfo for the SM clock: what the GPU may run at.
  std::optional<unsigned> max_sm_clock_mhz(Device device) const;
  // nvmlDeviceGetTotalEccErrors, volatile (since the driver loaded), corrected or uncorrected;
  // nothing when ECC is off or unknown.
  std::optional<unsigned long long> ecc_errors(Device device, bool uncorrected) const;
  // nvmlDeviceGetNvLinkErrorCounter summed over the active links: DL replay (0), recovery (1),
  // CRC flit (2) errors.
  std::optional<unsigned long long> nvlink_errors(Device device, int counter) const;
  // The process ids of every compute context on the device
  // (nvmlDeviceGetComputeRunningProcesses_v3): another program at work on a GPU shows here.
  std::optional<std::vector<unsigned>> compute_process_ids(Device device) const;

 private:
  struct Functions;
  Library();
  static std::unique_ptr<Library> open();
  void* handle_ = nullptr;
  std::unique_ptr<Functions> fn_;
  bool initialised_ = false;
};

}  // namespace collbench::nvml
