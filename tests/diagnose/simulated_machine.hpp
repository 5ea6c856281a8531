// Simulated figures of a healthy machine for the verdict's tests, the faults other programs make
// on real machines, and the second, targeted measurement the GPU side makes of flagged figures.
#pragma once

#include <vector>

#include "verdict/figures.hpp"
#include "verdict/verdict.hpp"

namespace collbench::diagnose::simulated {

// What a healthy H100-like machine measures (the rules only read ratios, so any values serve).
inline constexpr double kCopyGbps = 1490;
inline constexpr double kComputeTflops = 60;  // FP32 fused multiply-adds on every SM
inline constexpr double kNvlinkGbps = 370;
inline constexpr double kNvlinkLatencyUs = 8;
inline constexpr double kNetworkGbps = 45;
inline constexpr double kNetworkLatencyUs = 12;
inline constexpr double kOpTimeUs = 700;
inline constexpr double kGpuLatenessUs = 5;
inline constexpr double kHostLatenessUs = 3;
inline constexpr double kLatenessSpreadUs = 2;
// Each figure's spread over its own samples, as the probes report it (relative).
inline constexpr double kCopySpread = 0.005;
inline constexpr double kComputeSpread = 0.005;
inline constexpr double kBandwidthSpread = 0.01;
inline constexpr double kLatencySpread = 0.08;

// How much figures move from run to run: each by a uniform random share in [-x, +x].
struct Noise {
  double bandwidth = 0;  // copies, compute, pairs, collectives
  double latency = 0;    // pair latencies, arrival lateness
};
// What an untuned machine showed: bandwidths +-3%, small-message latencies +-20%.
inline constexpr Noise kRealisticNoise{0.03, 0.2};

// `hosts` hosts ("node-a", "node-b", ...) of `gpus_per_host` GPUs each: every GPU, every pair,
// the four collectives on all ranks (busbw at the ring bound, expectation filled in) and every
// rank's arrival, measured with `noise` (fixed seed). No rechecks.
Measurements healthy_machine(int hosts, int gpus_per_host, const Noise& noise = {},
                             unsigned seed = 1);
// One run's measurement of a machine whose true figures (lasting faults included) are `truth`:
// every bandwidth, latency and lateness moved by `noise`.
Measurements measure(const Measurements& truth, const Noise& noise, unsigned seed);

// Faults: every figure scaled by `factor`.
void scale_copy(Measurements& measurements, int rank, double factor);
void scale_compute(Measurements& measurements, int rank, double factor);
void scale_pairs_of(Measurements& measurements, int rank, double factor);  // both directions
void scale_pair(Measurements& measurements, int src, int dst, double factor);
void scale_latency(Measurements& measurements, int src, int dst, double factor);
// Faults other programs make. A GPU busy with another process's kernels: its compute, its copy
// and every pair and collective it is in at `share`, its GPU late to every op (its host on
// time), NVML seeing 2 other processes.
void make_busy_gpu(Measurements& measurements, int rank, double share = 0.5);
// A rank whose process is starved of CPU: its host launches `delay_us` late, so its GPU starts
// that late too, and the collectives it is in lose time.
void make_starved_host(Measurements& measurements, int rank, double delay_us = 2000);
// Another program's copies src -> dst fill the sending side of src and the receiving side of
// dst: every pair src sends on and every pair dst receives on at `share`. (The copies of src and
// dst, whose memory carries that traffic too, are the test's to scale.)
void load_link(Measurements& measurements, int src, int dst, double share = 0.6);
// A passing hiccup: one pair's latency, picked by `seed`, times `factor` (one sample of noise,
// gone when measured again).
void add_passing_outlier(Measurements& measurements, unsigned seed, double factor = 3);

// A collective on `ranks` at `ratio` x its ring bound (expected_busbw_gbps set).
void add_group(Measurements& measurements, std::vector<int> ranks, double ratio,
               const char* op = "all_reduce");
ArrivalFigures& arrival_of(Measurements& measurements, int rank);
GpuFigures& gpu_of(Measurements& measurements, int rank);
PairFigures& pair_of(Measurements& measurements, int src, int dst);

// What the GPU side measures again when asked: `truth`'s figures (the lasting faults, none of the
// passing ones), measured with fresh `noise`.
Rechecks recheck(const Measurements& truth, const RecheckRequest& request, const Noise& noise,
                 unsigned seed);
// The diagnosis as collbench_diagnose runs it: judge `measured` once, measure what was flagged
// again from `truth`, judge with the rechecks.
Verdict diagnose(const Measurements& truth, Measurements measured, const Noise& noise,
                 unsigned seed, const Thresholds& thresholds = {});

}  // namespace collbench::diagnose::simulated
