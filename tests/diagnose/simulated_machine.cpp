// A healthy machine's figures, made up from a few constants and a fixed-seed noise, and the
// faults and rechecks the verdict's tests put on them.
#include "simulated_machine.hpp"

#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>

#include "verdict/expectations.hpp"

namespace collbench::diagnose::simulated {
namespace {

// Moves figures by a uniform share of `noise`, from one seed.
class Jitter {
 public:
  Jitter(const Noise& noise, unsigned seed) : noise_(noise), generator_(seed) {}
  double bandwidth(double value) { return value * (1 + share(noise_.bandwidth)); }
  double latency(double value) { return value * (1 + share(noise_.latency)); }
  double share(double most) {
    return std::uniform_real_distribution<double>(-most, most)(generator_);
  }

 private:
  Noise noise_;
  std::mt19937 generator_;
};

GpuFigures healthy_gpu(int rank) {
  GpuFigures gpu;
  gpu.rank = rank;
  gpu.copy_gbps = kCopyGbps;
  gpu.copy_spread = kCopySpread;
  gpu.compute_tflops = kComputeTflops;
  gpu.compute_spread = kComputeSpread;
  gpu.other_processes = 0;
  gpu.sm_clock_mhz = 1980;
  gpu.max_sm_clock_mhz = 1980;
  gpu.clock_event_reasons = 0;
  gpu.ecc_uncorrected = 0;
  return gpu;
}

ArrivalFigures healthy_arrival(int rank, bool host_known) {
  ArrivalFigures arrival;
  arrival.rank = rank;
  arrival.gpu_lateness_us = kGpuLatenessUs;
  arrival.gpu_lateness_spread_us = kLatenessSpreadUs;
  arrival.waited_us = kGpuLatenessUs;
  arrival.host_known = host_known;
  arrival.host_lateness_us = host_known ? kHostLatenessUs : 0;
  arrival.op_time_us = kOpTimeUs;
  return arrival;
}

bool contains(const std::vector<int>& ranks, int rank) {
  return std::find(ranks.begin(), ranks.end(), rank) != ranks.end();
}

void scale_groups_of(Measurements& measurements, int rank, double factor) {
  for (GroupFigures& group : measurements.groups) {
    if (contains(group.ranks, rank)) group.busbw_gbps *= factor;
  }
}

void jitter_pair(PairFigures& pair, Jitter& jitter) {
  pair.bandwidth_gbps = jitter.bandwidth(pair.bandwidth_gbps);
  pair.latency_us = jitter.latency(pair.latency_us);
}

void jitter_arrival(ArrivalFigures& arrival, Jitter& jitter) {
  arrival.gpu_lateness_us = jitter.latency(arrival.gpu_lateness_us);
  arrival.host_lateness_us = jitter.latency(arrival.host_lateness_us);
  arrival.waited_us = jitter.latency(arrival.waited_us);
}

}  // namespace

Measurements healthy_machine(int hosts, int gpus_per_host, const Noise& noise, unsigned seed) {
  Measurements machine;
  const int ranks = hosts * gpus_per_host;
  for (int rank = 0; rank < ranks; ++rank) {
    const int local_gpu = rank % gpus_per_host;
    machine.ranks.push_back({rank, std::string("node-") + char('a' + rank / gpus_per_host),
                             local_gpu, "0000:" + std::to_string(10 + local_gpu) + ":00.0"});
    machine.gpus.push_back(healthy_gpu(rank));
    machine.arrivals.push_back(healthy_arrival(rank, gpus_per_host > 1));
  }
  for (int src = 0; src < ranks; ++src) {
    for (int dst = 0; dst < ranks; ++dst) {
      if (src == dst) continue;
      const bool network = src / gpus_per_host != dst / gpus_per_host;
      machine.pairs.push_back({src, dst, network ? kNetworkGbps : kNvlinkGbps,
                               network ? kNetworkLatencyUs : kNvlinkLatencyUs, kBandwidthSpread,
                               kLatencySpread});
    }
  }
  std::vector<int> everyone(ranks);
  for (int rank = 0; rank < ranks; ++rank) everyone[rank] = rank;
  for (const char* op : {"all_reduce", "all_gather", "reduce_scatter", "alltoall"}) {
    add_group(machine, everyone, 1, op);
  }
  return measure(machine, noise, seed);
}

Measurements measure(const Measurements& truth, const Noise& noise, unsigned seed) {
  Jitter jitter(noise, seed);
  Measurements measured = truth;
  for (GpuFigures& gpu : measured.gpus) gpu.copy_gbps = jitter.bandwidth(gpu.copy_gbps);
  for (ArrivalFigures& arrival : measured.arrivals) jitter_arrival(arrival, jitter);
  for (PairFigures& pair : measured.pairs) jitter_pair(pair, jitter);
  for (GroupFigures& group : measured.groups) {
    group.busbw_gbps = jitter.bandwidth(group.busbw_gbps);
  }
  // Last, so that every other figure of a seed stays what it was before compute was measured.
  for (GpuFigures& gpu : measured.gpus) gpu.compute_tflops = jitter.bandwidth(gpu.compute_tflops);
  return measured;
}

void scale_copy(Measurements& measurements, int rank, double factor) {
  gpu_of(measurements, rank).copy_gbps *= factor;
}

void scale_compute(Measurements& measurements, int rank, double factor) {
  gpu_of(measurements, rank).compute_tflops *= factor;
}

void scale_pairs_of(Measurements& measurements, int rank, double factor) {
  for (PairFigures& pair : measurements.pairs) {
    if (pair.src == rank || pair.dst == rank) pair.bandwidth_gbps *= factor;
  }
}

void scale_pair(Measurements& measurements, int src, int dst, double factor) {
  pair_of(measurements, src, dst).bandwidth_gbps *= factor;
}

void scale_latency(Measurements& measurements, int src, int dst, double factor) {
  pair_of(measurements, src, dst).latency_us *= factor;
}

void make_busy_gpu(Measurements& measurements, int rank, double share) {
  scale_compute(measurements, rank, share);
  scale_copy(measurements, rank, share);
  for (PairFigures& pair : measurements.pairs) {
    if (pair.src != rank && pair.dst != rank) continue;
    pair.bandwidth_gbps *= share;
    pair.latency_us /= share;
  }
  scale_groups_of(measurements, rank, share);
  // Time slices of the other process's kernels hold up the start of every op on the GPU.
  arrival_of(measurements, rank).gpu_lateness_us = (1 - share) * kOpTimeUs;
  gpu_of(measurements, rank).other_processes = 2;
}

void make_starved_host(Measurements& measurements, int rank, double delay_us) {
  ArrivalFigures& arrival = arrival_of(measurements, rank);
  arrival.host_lateness_us = delay_us;
  arrival.gpu_lateness_us = delay_us + kGpuLatenessUs;
  scale_groups_of(measurements, rank, kOpTimeUs / (kOpTimeUs + delay_us));
}

void load_link(Measurements& measurements, int src, int dst, double share) {
  for (PairFigures& pair : measurements.pairs) {
    if (pair.src == src) pair.bandwidth_gbps *= share;
    if (pair.dst == dst) pair.bandwidth_gbps *= share;
  }
}

void add_passing_outlier(Measurements& measurements, unsigned seed, double factor) {
  std::mt19937 generator(seed);
  const auto last = static_cast<int>(measurements.pairs.size()) - 1;
  measurements.pairs[std::uniform_int_distribution<int>(0, last)(generator)].latency_us *= factor;
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

PairFigures& pair_of(Measurements& measurements, int src, int dst) {
  for (PairFigures& pair : measurements.pairs) {
    if (pair.src == src && pair.dst == dst) return pair;
  }
  throw std::out_of_range("no pair " + std::to_string(src) + "->" + std::to_string(dst));
}

Rechecks recheck(const Measurements& truth, const RecheckRequest& request, const Noise& noise,
                 unsigned seed) {
  Measurements truth_copy = truth;  // the lookups hand out references into a list
  Jitter jitter(noise, seed);
  Rechecks rechecks;
  for (int rank : request.gpus) {
    GpuFigures gpu = gpu_of(truth_copy, rank);
    gpu.copy_gbps = jitter.bandwidth(gpu.copy_gbps);
    rechecks.gpus.push_back(gpu);
  }
  for (const auto& [src, dst] : request.pairs) {
    PairFigures pair = pair_of(truth_copy, src, dst);
    jitter_pair(pair, jitter);
    rechecks.pairs.push_back(pair);
  }
  if (request.arrivals) {
    for (ArrivalFigures arrival : truth.arrivals) {
      jitter_arrival(arrival, jitter);
      rechecks.arrivals.push_back(arrival);
    }
  }
  // Last, as in measure().
  for (GpuFigures& gpu : rechecks.gpus) gpu.compute_tflops = jitter.bandwidth(gpu.compute_tflops);
  return rechecks;
}

Verdict diagnose(const Measurements& truth, Measurements measured, const Noise& noise,
                 unsigned seed, const Thresholds& thresholds) {
  measured.rechecks = recheck(truth, to_recheck(measured, thresholds), noise, seed);
  return judge(measured, thresholds);
}

}  // namespace collbench::diagnose::simulated
