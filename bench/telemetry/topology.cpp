// Topology probing through the CUDA runtime and NVML (nvml_library.hpp).
#include "telemetry/topology.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <memory>

#include "core/errors.hpp"
#include "telemetry/nvml_library.hpp"

namespace collbench {

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
  const nvml::Library* library = nvml::Library::shared();
  if (library) {
    std::string version = library->driver_version();
    if (!version.empty()) return version;
  }
  return cuda_driver_api_version();
}

Topology probe_topology() {
  Topology topology;
  const nvml::Library* library = nvml::Library::shared();
  topology.nvml_available = library != nullptr && library->reads_nvlinks();
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
