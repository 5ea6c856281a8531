// NVML through dlopen (nvml_library.hpp).
#include "telemetry/nvml_library.hpp"

#include <dlfcn.h>

#include <type_traits>

namespace collbench::nvml {
namespace {

constexpr Return kSuccess = 0;                     // NVML_SUCCESS
constexpr int kFeatureEnabled = 1;                 // NVML_FEATURE_ENABLED (nvmlEnableState_t)
constexpr unsigned kDriverVersionBufferSize = 80;  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE
constexpr int kClockSm = 1;                        // NVML_CLOCK_SM (nvmlClockType_t)

struct PciInfo {         // nvmlPciInfo_t
  char busIdLegacy[16];  // "0000:18:00.0"
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[32];  // "00000000:18:00.0"
};
static_assert(sizeof(PciInfo) == 68, "nvmlPciInfo_t is 16 + 5 * 4 + 32 bytes");

// nvmlFieldValue_t, for one field whose value is an unsigned int.
struct FieldValue {
  unsigned int field_id;
  unsigned int scope_id;
  long long timestamp;
  long long latency_us;
  int value_type;
  Return status;
  union {
    double d;
    unsigned int ui;
    unsigned long long ull;
  } value;
};
static_assert(sizeof(FieldValue) == 40, "nvmlFieldValue_t is 4 + 4 + 8 + 8 + 4 + 4 + 8 bytes");
constexpr unsigned kFieldPowerInstant = 186;  // NVML_FI_DEV_POWER_INSTANT, milliwatts

// nvmlProcessInfo_t (v2/v3 layout): pid, used memory, GPU and compute instance ids.
struct ProcessInfo {
  unsigned int pid;
  unsigned long long used_gpu_memory;
  unsigned int gpu_instance_id;
  unsigned int compute_instance_id;
};
static_assert(sizeof(ProcessInfo) == 24, "nvmlProcessInfo_t is 4 + 4 (padding) + 8 + 4 + 4 bytes");
constexpr int kErrorInsufficientSize = 7;  // NVML_ERROR_INSUFFICIENT_SIZE

}  // namespace

struct Library::Functions {
  Return (*init)() = nullptr;
  Return (*shutdown)() = nullptr;
  Return (*driver_version)(char* version, unsigned int length) = nullptr;
  Return (*handle_by_bus_id)(const char* bus_id, Device* device) = nullptr;
  Return (*link_state)(Device device, unsigned int link, int* is_active) = nullptr;
  Return (*remote_pci)(Device device, unsigned int link, PciInfo* pci) = nullptr;
  Return (*remote_type)(Device device, unsigned int link, int* type) = nullptr;
  Return (*clock_info)(Device device, int type, unsigned int* mhz) = nullptr;
  Return (*power_usage)(Device device, unsigned int* milliwatts) = nullptr;
  Return (*field_values)(Device device, int count, FieldValue* values) = nullptr;
  Return (*clock_reasons)(Device device, unsigned long long* reasons) = nullptr;
  Return (*max_clock_info)(Device device, int type, unsigned int* mhz) = nullptr;
  Return (*ecc_errors)(Device device, int error_type, int counter_type,
                       unsigned long long* count) = nullptr;
  Return (*nvlink_error_counter)(Device device, unsigned int link, int counter,
                                 unsigned long long* value) = nullptr;
  Return (*compute_processes)(Device device, unsigned int* count, ProcessInfo* infos) = nullptr;
};

Library::Library() : fn_(new Functions()) {}

Library::~Library() {
  if (initialised_) fn_->shutdown();
  if (handle_) dlclose(handle_);
}

std::unique_ptr<Library> Library::open() {
  std::unique_ptr<Library> library(new Library());
  library->handle_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library->handle_) return nullptr;
  auto load = [&library](auto& fn, const char* symbol) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(library->handle_, symbol));
    return fn != nullptr;
  };
  Functions& fn = *library->fn_;
  const bool required = load(fn.init, "nvmlInit_v2") && load(fn.shutdown, "nvmlShutdown") &&
                        load(fn.handle_by_bus_id, "nvmlDeviceGetHandleByPciBusId_v2");
  if (!required || fn.init() != kSuccess) return nullptr;
  library->initialised_ = true;
  load(fn.driver_version, "nvmlSystemGetDriverVersion");
  load(fn.link_state, "nvmlDeviceGetNvLinkState");
  load(fn.remote_pci, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
  // Older drivers lack the remote device type; links are then classified by bus id alone.
  load(fn.remote_type, "nvmlDeviceGetNvLinkRemoteDeviceType");
  load(fn.clock_info, "nvmlDeviceGetClockInfo");
  load(fn.power_usage, "nvmlDeviceGetPowerUsage");
  load(fn.field_values, "nvmlDeviceGetFieldValues");
  load(fn.max_clock_info, "nvmlDeviceGetMaxClockInfo");
  load(fn.ecc_errors, "nvmlDeviceGetTotalEccErrors");
  load(fn.nvlink_error_counter, "nvmlDeviceGetNvLinkErrorCounter");
  load(fn.compute_processes, "nvmlDeviceGetComputeRunningProcesses_v3");
  if (!load(fn.clock_reasons, "nvmlDeviceGetCurrentClocksEventReasons"))
    load(fn.clock_reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
  return library;
}

const Library* Library::shared() {
  static const std::unique_ptr<Library> library = open();
  return library.get();
}

bool Library::reads_nvlinks() const {
  return fn_->link_state != nullptr && fn_->remote_pci != nullptr;
}

std::string Library::driver_version() const {
  char buffer[kDriverVersionBufferSize] = {};
  if (!fn_->driver_version || fn_->driver_version(buffer, sizeof buffer) != kSuccess) return "";
  return buffer;
}

Device Library::device(const std::string& bus_id) const {
  Device device = nullptr;
  return fn_->handle_by_bus_id(bus_id.c_str(), &device) == kSuccess ? device : nullptr;
}

bool Library::link_active(Device device, unsigned link) const {
  int active = 0;
  return fn_->link_state && fn_->link_state(device, link, &active) == kSuccess &&
         active == kFeatureEnabled;
}

std::string Library::remote_bus_id(Device device, unsigned link) const {
  PciInfo pci{};
  if (!fn_->remote_pci || fn_->remote_pci(device, link, &pci) != kSuccess) return "";
  pci.busId[sizeof pci.busId - 1] = '\0';
  return pci.busId;
}

int Library::remote_type(Device device, unsigned link) const {
  int type = -1;
  if (!fn_->remote_type || fn_->remote_type(device, link, &type) != kSuccess) return -1;
  return type;
}

std::optional<unsigned> Library::sm_clock_mhz(Device device) const {
  unsigned mhz = 0;
  if (!fn_->clock_info || fn_->clock_info(device, kClockSm, &mhz) != kSuccess) return std::nullopt;
  return mhz;
}

std::optional<unsigned> Library::power_mw(Device device) const {
  unsigned milliwatts = 0;
  if (!fn_->power_usage || fn_->power_usage(device, &milliwatts) != kSuccess) return std::nullopt;
  return milliwatts;
}

std::optional<unsigned> Library::instant_power_mw(Device device) const {
  FieldValue field{};
  field.field_id = kFieldPowerInstant;
  if (!fn_->field_values || fn_->field_values(device, 1, &field) != kSuccess ||
      field.status != kSuccess)
    return std::nullopt;
  return field.value.ui;
}

std::optional<unsigned long long> Library::clock_event_reasons(Device device) const {
  unsigned long long reasons = 0;
  if (!fn_->clock_reasons || fn_->clock_reasons(device, &reasons) != kSuccess) return std::nullopt;
  return reasons;
}

std::optional<unsigned> Library::max_sm_clock_mhz(Device device) const {
  unsigned mhz = 0;
  if (!fn_->max_clock_info || fn_->max_clock_info(device, kClockSm, &mhz) != kSuccess)
    return std::nullopt;
  return mhz;
}

std::optional<unsigned long long> Library::ecc_errors(Device device, bool uncorrected) const {
  constexpr int kVolatileEcc = 0;  // NVML_VOLATILE_ECC (nvmlEccCounterType_t; aggregate is 1)
  unsigned long long count = 0;
  // nvmlMemoryErrorType_t: NVML_MEMORY_ERROR_TYPE_CORRECTED 0, _UNCORRECTED 1.
  if (!fn_->ecc_errors ||
      fn_->ecc_errors(device, uncorrected ? 1 : 0, kVolatileEcc, &count) != kSuccess) {
    return std::nullopt;
  }
  return count;
}

std::optional<unsigned long long> Library::nvlink_errors(Device device, int counter) const {
  if (!fn_->nvlink_error_counter) return std::nullopt;
  unsigned long long total = 0;
  bool any = false;
  for (unsigned link = 0; link < kMaxLinks; ++link) {
    unsigned long long value = 0;
    if (!link_active(device, link) ||
        fn_->nvlink_error_counter(device, link, counter, &value) != kSuccess)
      continue;
    total += value;
    any = true;
  }
  if (!any) return std::nullopt;
  return total;
}

std::optional<std::vector<unsigned>> Library::compute_process_ids(Device device) const {
  if (!fn_->compute_processes) return std::nullopt;
  // The list can grow between asking for its length and reading it: a little room to spare.
  unsigned int count = 0;
  Return status = fn_->compute_processes(device, &count, nullptr);
  if (status != kSuccess && status != kErrorInsufficientSize) return std::nullopt;
  std::vector<ProcessInfo> infos(count + 8);
  count = static_cast<unsigned int>(infos.size());
  if (fn_->compute_processes(device, &count, infos.data()) != kSuccess) return std::nullopt;
  std::vector<unsigned> pids;
  for (unsigned int i = 0; i < count; ++i) pids.push_back(infos[i].pid);
  return pids;
}

}  // namespace collbench::nvml
