// Host API of the input fill and output check kernels (fill_check.cu).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "test_values.cuh"

namespace collbench::kernels {

// Writes input_value(params, rank, i) for i in [0, count) into `data` (of params.type).
void launch_fill(void* data, std::uint64_t count, const PatternParams& params, int rank,
                 cudaStream_t stream);

// Adds to *mismatches (device memory) the number of the `count` output elements at `data` on
// `rank` that differ from expected_value(params, rule, rank, j), or past what the rank receives
// (beyond_received) no longer hold the poison byte.
void launch_count_mismatches(const void* data, std::uint64_t count, const PatternParams& params,
                             const OutputRule& rule, int rank, unsigned long long* mismatches,
                             cudaStream_t stream);

// Flips element `index` of `data` so a check must catch it (fault injection in tests).
void launch_corrupt_element(void* data, std::uint64_t index, const PatternParams& params,
                            cudaStream_t stream);

// Loads every type's fill, check and corrupt kernels on the current device now: CUDA loads a
// kernel's module on its first launch and waits for an idle device to do it, which a device whose
// other streams wait on a peer (a replay's checked iteration) may not become in time.
cudaError_t preload_fill_check();

}  // namespace collbench::kernels
