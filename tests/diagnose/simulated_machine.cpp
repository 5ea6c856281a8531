// A healthy machine's figures, made up from a few constants and a fixed-seed jitter.
#include "simulated_machine.hpp"

#include <random>
#include <stdexcept>
#include <string>

#include "expectations.hpp"

namespace collbench::diagnose::simulated {

Measurements healthy_machine(int hosts, int gpus_per_host, double jitter, unsigned seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<double> share(-jitter, jitter);
  const auto jittered = [&](double value) { return value * (1 + share(generator)); };
  Measurements measurements;
  const int ranks = hosts * gpus_per_host;
  for (int rank = 0; rank < ranks; ++rank) {
    const int local_gpu = rank % gpus_per_host;
    measurements.ranks.push_back({rank, std::string("node-") + char('a' + rank / gpus_per_host),
                                  local_gpu, "0000:" + std::to_string(10 + local_gpu) + ":00.0"});
    GpuFigures gpu;
    gpu.rank = rank;
    gpu.copy_gbps = jittered(kCopyGbps);
    gpu.sm_clock_mhz = 1980;
    gpu.max_sm_clock_mhz = 1980;
    gpu.clock_event_reasons = 0;
    gpu.ecc_uncorrected = 0;
    measurements.gpus.push_back(gpu);
    measurements.arrivals.push_back({rank, jittered(kLatenessUs), kOpTimeUs});
  }
  for (int src = 0; src < ranks; ++src) {
    for (int dst = 0; dst < ranks; ++dst) {
      if (src == dst) continue;
      const bool network = src / gpus_per_host != dst / gpus_per_host;
      measurements.pairs.push_back({src, dst, jittered(network ? kNetworkGbps : kNvlinkGbps),
                                    jittered(network ? kNetworkLatencyUs : kNvlinkLatencyUs)});
    }
  }
  std::vector<int> everyone(ranks);
  for (int rank = 0; rank < ranks; ++rank) everyone[rank] = rank;
  for (const char* op : {"all_reduce", "all_gather", "reduce_scatter", "alltoall"}) {
    add_group(measurements, everyone, 1 + share(generator), op);
  }
  return measurements;
}

void scale_copy(Measurements& measurements, int rank, double factor) {
  gpu_of(measurements, rank).copy_gbps *= factor;
}

void scale_pairs_of(Measurements& measurements, int rank, double factor) {
  for (PairFigures& pair : measurements.pairs) {
    if (pair.src == rank || pair.dst == rank) pair.bandwidth_gbps *= factor;
  }
}

void scale_pair(Measurements& measurements, int src, int dst, double factor) {
  for (PairFigures& pair : measurements.pairs) {
    if (pair.src == src && pair.dst == dst) pair.bandwidth_gbps *= factor;
  }
}

void scale_latency(Measurements& measurements, int src, int dst, double factor) {
  for (PairFigures& pair : measurements.pairs) {
    if (pair.src == src && pair.dst == dst) pair.latency_us *= factor;
  }
}

void add_group(Measurements& measurements, std::vector<int> ranks, double ratio, const char* op) {
  GroupFigures group;
  group.expected_busbw_gbps = ring_busbw_bound_gbps(measurements, ranks);
  group.busbw_gbps = ratio * group.expected_busbw_gbps;
  group.time_us = kOpTimeUs;
  group.op = op;
  group.ranks = std::move(ranks);
  measurements.groups.push_back(std::move(group));
}

ArrivalFigures& arrival_of(Measurements& measurements, int rank) {
  for (ArrivalFigures& arrival : measurements.arrivals) {
    if (arrival.rank == rank) return arrival;
  }
  throw std::out_of_range("no arrival of rank " + std::to_string(rank));
}

GpuFigures& gpu_of(Measurements& measurements, int rank) {
  for (GpuFigures& gpu : measurements.gpus) {
    if (gpu.rank == rank) return gpu;
  }
  throw std::out_of_range("no GPU of rank " + std::to_string(rank));
}

}  // namespace collbench::diagnose::simulated
