// GPU tests of the topology probe: what it reports agrees with CUDA, pairs are consistent both
// ways, and the driver version is NVML's when NVML is there.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <iostream>
#include <regex>
#include <string>

#include "measure/runner.hpp"
#include "runtime/cuda_resources.hpp"
#include "telemetry/topology.hpp"

namespace collbench {
namespace {

TEST(TopologyGpu, ProbeAgreesWithCuda) {
  const int count = visible_gpu_count();
  if (count < 1) GTEST_SKIP() << "needs a CUDA GPU";
  const Topology topology = probe_topology();
  ASSERT_EQ(static_cast<int>(topology.gpus.size()), count);
  for (int i = 0; i < count; ++i) {
    const GpuInfo& gpu = topology.gpus[i];
    EXPECT_EQ(gpu.index, i);
    EXPECT_FALSE(gpu.name.empty());
    EXPECT_FALSE(canonical_pci_bus_id(gpu.pci_bus_id).empty()) << gpu.pci_bus_id;
    EXPECT_GT(gpu.memory_bytes, 0u);
    EXPECT_GT(gpu.sm_count, 0);
    for (int j = 0; j < count; ++j) {
      if (i == j) continue;
      const PeerLink& link = topology.link(i, j);
      int can_access = 0;
      ASSERT_EQ(cudaDeviceCanAccessPeer(&can_access, i, j), cudaSuccess);
      EXPECT_EQ(link.can_access_peer, can_access != 0);
      EXPECT_EQ(link.can_access_peer, topology.link(j, i).can_access_peer) << i << "<->" << j;
      if (link.can_access_peer) {
        EXPECT_GE(link.performance_rank, 0);
      }
      if (topology.nvml_available) {
        EXPECT_GE(link.nvlink_count, 0);
        EXPECT_EQ(link.nvlink_count, topology.link(j, i).nvlink_count) << i << "<->" << j;
      } else {
        EXPECT_EQ(link.nvlink_count, -1);
      }
    }
  }
  const std::string report = format_topology(topology);
  EXPECT_NE(report.find("GPU" + std::to_string(count - 1)), std::string::npos) << report;
  std::cout << report;  // the machine's topology in the test log
}

TEST(TopologyGpu, DriverVersionIsNvmlsOrCudas) {
  if (visible_gpu_count() < 1) GTEST_SKIP() << "needs a CUDA GPU";
  const std::string version = driver_version_string();
  const Topology topology = probe_topology();
  EXPECT_EQ(version, topology.driver_version);
  if (topology.nvml_available) {
    EXPECT_TRUE(std::regex_match(version, std::regex(R"(\d+\.\d+(\.\d+)?)"))) << version;
  } else {
    EXPECT_TRUE(std::regex_match(version, std::regex(R"(CUDA \d+\.\d+)"))) << version;
  }
}

}  // namespace
}  // namespace collbench
