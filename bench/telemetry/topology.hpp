// What the GPUs of this machine are and how they connect: per GPU its name, PCI bus id, memory
// and SMs; per pair peer access, CUDA's P2P performance rank and (through NVML, when the driver
// has it) the NVLink count; printed as a matrix like `nvidia-smi topo -m`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace collbench {

struct GpuInfo {
  int index = 0;  // CUDA device ordinal (after CUDA_VISIBLE_DEVICES)
  std::string name;
  std::string pci_bus_id;  // as CUDA writes it: "0000:18:00.0"
  std::uint64_t memory_bytes = 0;
  int sm_count = 0;
  int nvswitch_links = 0;  // active NVLinks that end at an NVSwitch (0 without NVML)
};

struct PeerLink {
  bool can_access_peer = false;  // cudaDeviceCanAccessPeer(this row's GPU, this column's GPU)
  int performance_rank = -1;     // cudaDevP2PAttrPerformanceRank: 0 is best; -1 unknown
  // NVLinks between the two GPUs, direct or through NVSwitches (what nvidia-smi topo -m calls
  // NV#); -1 when NVML is not available, so the count is unknown rather than zero.
  int nvlink_count = -1;
};

struct Topology {
  std::vector<GpuInfo> gpus;
  std::vector<std::vector<PeerLink>> links;  // links[a][b], a != b; the diagonal is unused
  bool nvml_available = false;
  std::string driver_version;

  const PeerLink& link(int a, int b) const { return links.at(a).at(b); }
};

// Queries CUDA (and NVML if libnvidia-ml.so.1 loads) for every visible GPU. Throws GpuError when
// a CUDA query fails; no GPU gives an empty Topology.
Topology probe_topology();

// A readable report: the link matrix (X self, NV# NVLinks, P2P peer access without NVLink,
// - no peer access), one line per GPU and the P2P performance ranks.
std::string format_topology(const Topology& topology);

// NVML's driver version ("580.159.04"); without NVML, CUDA's driver API version ("CUDA 13.0");
// "none" when there is no driver at all. Never throws.
std::string driver_version_string();

// "0000:18:00.0" and NVML's "00000000:18:00.0" name the same device: both become the canonical
// lower-case "0000:18:00.0" (4-digit domain). Returns "" for text that is not a PCI bus id.
std::string canonical_pci_bus_id(const std::string& bus_id);

// Pairs connected through NVSwitches: both GPUs have links into the switch fabric, so a pair
// gets min of their switch-link counts on top of its direct links (as nvidia-smi reports NV18
// for every pair of an HGX H200 board). `direct[a][b]` counts links from a that end at b.
int nvlinks_between(int direct_links_a_to_b, int nvswitch_links_a, int nvswitch_links_b);

}  // namespace collbench
