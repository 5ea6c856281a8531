// Topology probing through the CUDA runtime and, opened at run time with dlopen, NVML.
#include "topology.hpp"

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <memory>

#include "errors.hpp"

namespace collbench {
namespace nvml {

// The few NVML declarations used here, written from nvml.h (API version 11+) so that collbench
// builds without nvml.h and does not link libnvidia-ml: the library comes with the driver, and
// a machine without one must still run the CPU tests and print a topology without NVLinks.
using Return = int;  // nvmlReturn_t; 0 is NVML_SUCCESS
struct DeviceOpaque;
using Device = DeviceOpaque*;                      // nvmlDevice_t
constexpr Return kSuccess = 0;                     // NVML_SUCCESS
constexpr unsigned kMaxLinks = 18;                 // NVML_NVLINK_MAX_LINKS
constexpr int kFeatureEnabled = 1;                 // NVML_FEATURE_ENABLED (nvmlEnableState_t)
constexpr int kRemoteGpu = 0;                      // NVML_NVLINK_DEVICE_TYPE_GPU
constexpr int kRemoteSwitch = 2;                   // NVML_NVLINK_DEVICE_TYPE_SWITCH
constexpr unsigned kDriverVersionBufferSize = 80;  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE

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

using InitFn = Return (*)();
using ShutdownFn = Return (*)();
using DriverVersionFn = Return (*)(char* version, unsigned int length);
using HandleByBusIdFn = Return (*)(const char* bus_id, Device* device);
using LinkStateFn = Return (*)(Device device, unsigned int link, int* is_active);
using RemotePciFn = Return (*)(Device device, unsigned int link, PciInfo* pci);
using RemoteTypeFn = Return (*)(Device device, unsigned int link, int* type);

// libnvidia-ml.so.1, opened and initialised; shut down and closed on destruction.
class Library {
 public:
  // Null when the library or one of the required entry points is missing, or init fails.
  static std::unique_ptr<Library> open() {
    std::unique_ptr<Library> library(new Library());
    library->handle_.reset(dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL));
    if (!library->handle_) return nullptr;
    const bool complete =
        library->load(library->init_, "nvmlInit_v2") &&
        library->load(library->shutdown_, "nvmlShutdown") &&
        library->load(library->driver_version_, "nvmlSystemGetDriverVersion") &&
        library->load(library->handle_by_bus_id_, "nvmlDeviceGetHandleByPciBusId_v2") &&
        library->load(library->link_state_, "nvmlDeviceGetNvLinkState") &&
        library->load(library->remote_pci_, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
    if (!complete || library->init_() != kSuccess) return nullptr;
    // Older drivers lack the remote device type; links are then classified by bus id alone.
    library->load(library->remote_type_, "nvmlDeviceGetNvLinkRemoteDeviceType");
    library->initialised_ = true;
    return library;
  }
  ~Library() {
    if (initialised_) shutdown_();
  }
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  std::string driver_version() const {
    char buffer[kDriverVersionBufferSize] = {};
    if (driver_version_(buffer, sizeof buffer) != kSuccess) return "";
    return buffer;
  }
  Device device(const std::string& bus_id) const {
    Device device = nullptr;
    return handle_by_bus_id_(bus_id.c_str(), &device) == kSuccess ? device : nullptr;
  }
  bool link_active(Device device, unsigned link) const {
    int active = 0;
    return link_state_(device, link, &active) == kSuccess && active == kFeatureEnabled;
  }
  std::string remote_bus_id(Device device, unsigned link) const {
    PciInfo pci{};
    if (remote_pci_(device, link, &pci) != kSuccess) return "";
    pci.busId[sizeof pci.busId - 1] = '\0';
    return pci.busId;
  }
  // NVML_NVLINK_DEVICE_TYPE_*, or -1 when this driver cannot tell.
  int remote_type(Device device, unsigned link) const {
    int type = -1;
    if (!remote_type_ || remote_type_(device, link, &type) != kSuccess) return -1;
    return type;
  }

 private:
  Library() = default;
  template <typename Fn>
  bool load(Fn& fn, const char* symbol) {
    fn = reinterpret_cast<Fn>(dlsym(handle_.get(), symbol));
    return fn != nullptr;
  }
  struct Closer {
    void operator()(void* handle) const { dlclose(handle); }
  };
  std::unique_ptr<void, Closer> handle_;
  bool initialised_ = false;
  InitFn init_ = nullptr;
  ShutdownFn shutdown_ = nullptr;
  DriverVersionFn driver_version_ = nullptr;
  HandleByBusIdFn handle_by_bus_id_ = nullptr;
  LinkStateFn link_state_ = nullptr;
  RemotePciFn remote_pci_ = nullptr;
  RemoteTypeFn remote_type_ = nullptr;
};

}  // namespace nvml

namespace {

std::string cuda_driver_api_version() {
  int version = 0;
  if (cudaDriverGetVersion(&version) != cudaSuccess || version == 0) {
    cudaGetLastError();
    return "none";
  }
  return fmt::format("CUDA {}.{}", version / 1000, (version % 1000) / 10);
}

GpuInfo probe_gpu(int device) {
  cudaDeviceProp properties{};
  CB_CUDA_CHECK(cudaGetDeviceProperties(&properties, device));
  char bus_id[32] = {};
  CB_CUDA_CHECK(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device));
  GpuInfo gpu;
  gpu.index = device;
  gpu.name = properties.name;
  gpu.pci_bus_id = bus_id;
  gpu.memory_bytes = properties.totalGlobalMem;
  gpu.sm_count = properties.multiProcessorCount;
  return gpu;
}

// Counts each GPU's active NVLinks by where they end: at another visible GPU (direct) or at an
// NVSwitch. Links to GPUs hidden by CUDA_VISIBLE_DEVICES, or to other devices, are left out.
void probe_nvlinks(const nvml::Library& library, Topology& topology) {
  const std::size_t count = topology.gpus.size();
  std::vector<std::string> canonical(count);
  for (std::size_t i = 0; i < count; ++i)
    canonical[i] = canonical_pci_bus_id(topology.gpus[i].pci_bus_id);

  std::vector<std::vector<int>> direct(count, std::vector<int>(count, 0));
  for (std::size_t a = 0; a < count; ++a) {
    const nvml::Device device = library.device(topology.gpus[a].pci_bus_id);
    if (device == nullptr) continue;
    for (unsigned link = 0; link < nvml::kMaxLinks; ++link) {
      if (!library.link_active(device, link)) continue;
      const std::string remote = canonical_pci_bus_id(library.remote_bus_id(device, link));
      const auto peer = std::find(canonical.begin(), canonical.end(), remote);
      const int type = library.remote_type(device, link);
      if (type == nvml::kRemoteSwitch) {
        ++topology.gpus[a].nvswitch_links;
      } else if (remote.empty() || (type != nvml::kRemoteGpu && type >= 0)) {
        continue;  // unknown far end, or another kind of device (IBM NPU)
      } else if (peer != canonical.end()) {
        ++direct[a][static_cast<std::size_t>(peer - canonical.begin())];
      } else if (type < 0) {
        // This driver cannot name the far end's type and it is no visible GPU: an NVSwitch.
        ++topology.gpus[a].nvswitch_links;
      }
    }
  }
  for (std::size_t a = 0; a < count; ++a) {
    for (std::size_t b = 0; b < count; ++b) {
      if (a == b) continue;
      topology.links[a][b].nvlink_count = nvlinks_between(
          direct[a][b], topology.gpus[a].nvswitch_links, topology.gpus[b].nvswitch_links);
    }
  }
}

std::string link_cell(const Topology& topology, std::size_t a, std::size_t b) {
  if (a == b) return "X";
  const PeerLink& link = topology.links[a][b];
  if (link.nvlink_count > 0) return fmt::format("NV{}", link.nvlink_count);
  return link.can_access_peer ? "P2P" : "-";
}

std::string rank_cell(const Topology& topology, std::size_t a, std::size_t b) {
  if (a == b) return "X";
  const PeerLink& link = topology.links[a][b];
  if (!link.can_access_peer || link.performance_rank < 0) return "-";
  return std::to_string(link.performance_rank);
}

// A square table with GPU headers, every column as wide as the widest cell.
template <typename Cell>
std::string format_matrix(const Topology& topology, Cell cell) {
  const std::size_t count = topology.gpus.size();
  std::size_t width = fmt::format("GPU{}", count - 1).size();
  for (std::size_t a = 0; a < count; ++a) {
    for (std::size_t b = 0; b < count; ++b) width = std::max(width, cell(topology, a, b).size());
  }
  width += 2;
  std::string text = fmt::format("{:<{}}", "", width);
  for (std::size_t b = 0; b < count; ++b)
    text += fmt::format("{:<{}}", fmt::format("GPU{}", b), width);
  text += '\n';
  for (std::size_t a = 0; a < count; ++a) {
    std::string line = fmt::format("{:<{}}", fmt::format("GPU{}", a), width);
    for (std::size_t b = 0; b < count; ++b)
      line += fmt::format("{:<{}}", cell(topology, a, b), width);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    text += line + '\n';
  }
  return text;
}

}  // namespace

std::string canonical_pci_bus_id(const std::string& bus_id) {
  unsigned domain = 0, bus = 0, device = 0, function = 0;
  int used = 0;
  // domain:bus:device.function in hex; CUDA writes a 4-digit domain, NVML an 8-digit one.
  if (std::sscanf(bus_id.c_str(), "%x:%x:%x.%x%n", &domain, &bus, &device, &function, &used) != 4 ||
      static_cast<std::size_t>(used) != bus_id.size() || bus > 0xff || device > 0x1f ||
      function > 7) {
    return "";
  }
  return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", domain, bus, device, function);
}

int nvlinks_between(int direct_links_a_to_b, int nvswitch_links_a, int nvswitch_links_b) {
  const int through_switch = (nvswitch_links_a > 0 && nvswitch_links_b > 0)
                                 ? std::min(nvswitch_links_a, nvswitch_links_b)
                                 : 0;
  return direct_links_a_to_b + through_switch;
}

std::string driver_version_string() {
  const std::unique_ptr<nvml::Library> library = nvml::Library::open();
  if (library) {
    std::string version = library->driver_version();
    if (!version.empty()) return version;
  }
  return cuda_driver_api_version();
}

Topology probe_topology() {
  Topology topology;
  const std::unique_ptr<nvml::Library> library = nvml::Library::open();
  topology.nvml_available = library != nullptr;
  topology.driver_version = library ? library->driver_version() : "";
  if (topology.driver_version.empty()) topology.driver_version = cuda_driver_api_version();

  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaErrorNoDevice || status == cudaErrorInsufficientDriver) {
    cudaGetLastError();  // no GPU is an answer here, not an error
    return topology;
  }
  if (status != cudaSuccess)
    throw_cuda_error(status, "cudaGetDeviceCount(&count)", __FILE__, __LINE__);

  for (int device = 0; device < count; ++device) topology.gpus.push_back(probe_gpu(device));
  topology.links.assign(count, std::vector<PeerLink>(count));
  for (int a = 0; a < count; ++a) {
    for (int b = 0; b < count; ++b) {
      if (a == b) continue;
      PeerLink& link = topology.links[a][b];
      int can_access = 0;
      CB_CUDA_CHECK(cudaDeviceCanAccessPeer(&can_access, a, b));
      link.can_access_peer = can_access != 0;
      if (link.can_access_peer) {
        CB_CUDA_CHECK(
            cudaDeviceGetP2PAttribute(&link.performance_rank, cudaDevP2PAttrPerformanceRank, a, b));
      }
    }
  }
  if (library) probe_nvlinks(*library, topology);
  return topology;
}

std::string format_topology(const Topology& topology) {
  if (topology.gpus.empty()) {
    return fmt::format("GPU topology: no CUDA GPU visible (driver {})\n", topology.driver_version);
  }
  std::string text =
      fmt::format("GPU topology (driver {}; {})\n", topology.driver_version,
                  topology.nvml_available ? "NVLink counts from NVML"
                                          : "NVML not available: NVLink counts unknown");
  text += format_matrix(topology, link_cell);
  text +=
      "Legend: X = self, NV# = # NVLinks (direct or through NVSwitch), P2P = peer access without "
      "NVLink, - = no peer access\n";
  for (const GpuInfo& gpu : topology.gpus) {
    text += fmt::format("GPU{}: {}, PCI {}, {} MiB, {} SMs", gpu.index, gpu.name, gpu.pci_bus_id,
                        gpu.memory_bytes >> 20, gpu.sm_count);
    if (gpu.nvswitch_links > 0) text += fmt::format(", {} NVLinks to NVSwitch", gpu.nvswitch_links);
    text += '\n';
  }
  text += "P2P performance rank (cudaDevP2PAttrPerformanceRank; 0 = best, - = no peer access):\n";
  text += format_matrix(topology, rank_cell);
  return text;
}

}  // namespace collbench
