// Tests of the topology report with hand-made topologies (no GPU): the link matrix reads like
// nvidia-smi topo -m, PCI bus ids from CUDA and NVML compare equal, NVSwitch links count per pair.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "telemetry/topology.hpp"

namespace collbench {
namespace {

// Every GPU `count` pairs as given by `cell(a, b)`.
Topology make_topology(int count, bool nvml, PeerLink (*cell)(int a, int b)) {
  Topology topology;
  topology.nvml_available = nvml;
  topology.driver_version = nvml ? "580.159.04" : "CUDA 13.0";
  for (int i = 0; i < count; ++i) {
    GpuInfo gpu;
    gpu.index = i;
    gpu.name = "NVIDIA H200";
    gpu.pci_bus_id = "0000:1" + std::to_string(i) + ":00.0";
    gpu.memory_bytes = 143771ull << 20;
    gpu.sm_count = 132;
    gpu.nvswitch_links = nvml ? 18 : 0;
    topology.gpus.push_back(gpu);
  }
  topology.links.assign(count, std::vector<PeerLink>(count));
  for (int a = 0; a < count; ++a) {
    for (int b = 0; b < count; ++b) {
      if (a != b) topology.links[a][b] = cell(a, b);
    }
  }
  return topology;
}

// The whitespace-separated cells of the first report line starting with `row_label`, after it.
std::vector<std::string> row_cells(const std::string& report, const std::string& row_label,
                                   int skip = 0) {
  std::istringstream lines(report);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind(row_label + " ", 0) != 0) continue;
    if (skip-- > 0) continue;
    std::istringstream words(line.substr(row_label.size()));
    std::vector<std::string> cells;
    for (std::string word; words >> word;) cells.push_back(word);
    return cells;
  }
  return {};
}

TEST(TopologyFormat, NvSwitchBoardShowsNv18EverywhereAndRanks) {
  const Topology topology = make_topology(4, true, [](int, int) { return PeerLink{true, 0, 18}; });
  const std::string report = format_topology(topology);
  EXPECT_NE(report.find("driver 580.159.04"), std::string::npos) << report;
  EXPECT_NE(report.find("NVLink counts from NVML"), std::string::npos) << report;
  EXPECT_EQ(row_cells(report, "GPU0"), (std::vector<std::string>{"X", "NV18", "NV18", "NV18"}))
      << report;
  EXPECT_EQ(row_cells(report, "GPU3"), (std::vector<std::string>{"NV18", "NV18", "NV18", "X"}))
      << report;
  // The second GPU0 row is the performance-rank matrix.
  EXPECT_EQ(row_cells(report, "GPU0", 1), (std::vector<std::string>{"X", "0", "0", "0"})) << report;
  EXPECT_NE(report.find(
                "GPU2: NVIDIA H200, PCI 0000:12:00.0, 143771 MiB, 132 SMs, 18 NVLinks to NVSwitch"),
            std::string::npos)
      << report;
}

TEST(TopologyFormat, MixedLinksShowNvP2pAndNone) {
  // 0-1: 4 direct NVLinks; 0-2: peer access over PCIe; 1-2: no peer access.
  const Topology topology = make_topology(3, true, [](int a, int b) {
    const int low = a < b ? a : b, high = a < b ? b : a;
    if (low == 0 && high == 1) return PeerLink{true, 0, 4};
    if (low == 0 && high == 2) return PeerLink{true, 1, 0};
    return PeerLink{false, -1, 0};
  });
  const std::string report = format_topology(topology);
  EXPECT_EQ(row_cells(report, "GPU0"), (std::vector<std::string>{"X", "NV4", "P2P"})) << report;
  EXPECT_EQ(row_cells(report, "GPU1"), (std::vector<std::string>{"NV4", "X", "-"})) << report;
  EXPECT_EQ(row_cells(report, "GPU2"), (std::vector<std::string>{"P2P", "-", "X"})) << report;
  EXPECT_EQ(row_cells(report, "GPU0", 1), (std::vector<std::string>{"X", "0", "1"})) << report;
  EXPECT_EQ(row_cells(report, "GPU1", 1), (std::vector<std::string>{"0", "X", "-"})) << report;
}

TEST(TopologyFormat, WithoutNvmlPeerAccessShowsAsP2p) {
  const Topology topology = make_topology(2, false, [](int, int) { return PeerLink{true, 0, -1}; });
  const std::string report = format_topology(topology);
  EXPECT_NE(report.find("NVML not available"), std::string::npos) << report;
  EXPECT_NE(report.find("driver CUDA 13.0"), std::string::npos) << report;
  EXPECT_EQ(row_cells(report, "GPU0"), (std::vector<std::string>{"X", "P2P"})) << report;
  EXPECT_EQ(report.find("NVSwitch,"), std::string::npos) << report;
}

TEST(TopologyFormat, NoGpuIsOneLine) {
  Topology topology;
  topology.driver_version = "none";
  EXPECT_EQ(format_topology(topology), "GPU topology: no CUDA GPU visible (driver none)\n");
}

TEST(TopologyFormat, ColumnsWidenForLongCells) {
  const Topology topology = make_topology(12, true, [](int, int) { return PeerLink{true, 0, 18}; });
  const std::string report = format_topology(topology);
  const std::vector<std::string> cells = row_cells(report, "GPU11");
  ASSERT_EQ(cells.size(), 12u) << report;
  EXPECT_EQ(cells.back(), "X");
}

TEST(PciBusId, CudaAndNvmlFormsAreTheSameDevice) {
  EXPECT_EQ(canonical_pci_bus_id("0000:18:00.0"), "0000:18:00.0");
  EXPECT_EQ(canonical_pci_bus_id("00000000:18:00.0"), "0000:18:00.0");
  EXPECT_EQ(canonical_pci_bus_id("00000000:1A:00.0"), canonical_pci_bus_id("0000:1a:00.0"));
  EXPECT_EQ(canonical_pci_bus_id("0001:C3:1F.7"), "0001:c3:1f.7");
  EXPECT_NE(canonical_pci_bus_id("0000:18:00.0"), canonical_pci_bus_id("0000:19:00.0"));
}

TEST(PciBusId, GarbageIsNotABusId) {
  EXPECT_EQ(canonical_pci_bus_id(""), "");
  EXPECT_EQ(canonical_pci_bus_id("GPU-1234"), "");
  EXPECT_EQ(canonical_pci_bus_id("0000:18:00"), "");
  EXPECT_EQ(canonical_pci_bus_id("0000:18:00.0 trailing"), "");
  EXPECT_EQ(canonical_pci_bus_id("0000:100:00.0"), "");  // bus is one byte
}

TEST(NvLinkCount, DirectAndThroughSwitch) {
  EXPECT_EQ(nvlinks_between(0, 18, 18), 18);  // HGX H200: every pair NV18 through NVSwitch
  EXPECT_EQ(nvlinks_between(0, 18, 0), 0);    // the peer has no switch links
  EXPECT_EQ(nvlinks_between(4, 0, 0), 4);     // direct links only (bridge, DGX-1 style)
  EXPECT_EQ(nvlinks_between(2, 6, 12), 8);    // the fewer switch links bound the pair
}

}  // namespace
}  // namespace collbench
