// Simulated figures of a healthy machine for the verdict's tests, and the faults they inject.
#pragma once

#include <vector>

#include "figures.hpp"

namespace collbench::diagnose::simulated {

// What a healthy H100-like machine measures (the rules only read ratios, so any values serve).
inline constexpr double kCopyGbps = 1490;
inline constexpr double kNvlinkGbps = 370;
inline constexpr double kNvlinkLatencyUs = 8;
inline constexpr double kNetworkGbps = 45;
inline constexpr double kNetworkLatencyUs = 12;
inline constexpr double kOpTimeUs = 700;
inline constexpr double kLatenessUs = 5;

// `hosts` hosts ("node-a", "node-b", ...) of `gpus_per_host` GPUs each: every GPU, every pair,
// the four collectives on all ranks (busbw at the ring bound, expectation filled in) and every
// rank's arrival, each figure moved by a uniform random share in [-jitter, +jitter] (fixed seed).
Measurements healthy_machine(int hosts, int gpus_per_host, double jitter = 0, unsigned seed = 1);

// Faults: every figure scaled by `factor`.
void scale_copy(Measurements& measurements, int rank, double factor);
void scale_pairs_of(Measurements& measurements, int rank, double factor);  // both directions
void scale_pair(Measurements& measurements, int src, int dst, double factor);
void scale_latency(Measurements& measurements, int src, int dst, double factor);
// A collective on `ranks` at `ratio` x its ring bound (expected_busbw_gbps set).
void add_group(Measurements& measurements, std::vector<int> ranks, double ratio,
               const char* op = "all_reduce");
ArrivalFigures& arrival_of(Measurements& measurements, int rank);
GpuFigures& gpu_of(Measurements& measurements, int rank);

}  // namespace collbench::diagnose::simulated
