// The copy-engine all-reduce's reduction: out = op over every rank's piece, all of them already in
// this GPU's memory (the copy engines moved them), so the kernel is bound by local HBM, not NVLink.
#include <cstdint>

#include "reduce_dispatch.cuh"
#include "reduce_ops.cuh"
#include "reduce_pack.cuh"
#include "reduce_sources.hpp"

namespace collbench::kernels {
namespace {

constexpr int kThreads = 512;
// ReduceSourcesArgs::sms: 16-byte packs each thread loads before it combines any (about 128 KiB in
// flight per SM, where one pack per source gives 32 KiB and about 34 GB/s per SM), and the shared
// memory a block reserves so that its SM holds nothing else of that size.
constexpr int kPacksInFlight = 16;
constexpr int kSmReservationBytes = 120 << 10;

// Element `k` of every source combined in rank order, rounded once.
template <typename T, typename Op, int kRanks>
__device__ inline T combine_sources(const T (&values)[kRanks], int average_over) {
  accumulator_t<T> value = widen(values[0]);
#pragma unroll
  for (int r = 1; r < kRanks; ++r) value = Op::apply(value, widen(values[r]));
  if (average_over != 0) value = divide_by_ranks(value, average_over);
  return narrow<T>(value);
}

// kLines lines per thread and iteration, all loaded before any is combined: 1 for the usual grid,
// more for a grid of a few SMs (ReduceSourcesArgs::sms).
template <typename T, typename Op, int kRanks, int kLines>
__global__ void __launch_bounds__(kThreads)
    reduce_sources_kernel(ReduceSourcesArgs args, bool aligned) {
  const std::uint64_t worker = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  const std::uint64_t workers = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  // 0: no division.
  const int average_over = args.reduction != Reduction::avg ? 0
                           : args.average_over != 0         ? args.average_over
                                                            : kRanks;
  T* out = static_cast<T*>(args.out);
  std::uint64_t scalar_begin = 0;
  if (aligned) {
    constexpr int kLine = Pack<T>::kCount;
    const std::uint64_t lines = args.count / kLine;
    for (std::uint64_t first = worker; first < lines; first += workers * kLines) {
      Pack<T> packs[kLines][kRanks];
#pragma unroll
      for (int j = 0; j < kLines; ++j) {
        const std::uint64_t line = first + j * workers;
        if (line >= lines) break;
#pragma unroll
        for (int r = 0; r < kRanks; ++r) {
          packs[j][r] = load_pack_shared(static_cast<const Pack<T>*>(args.sources[r]) + line);
        }
      }
#pragma unroll
      for (int j = 0; j < kLines; ++j) {
        const std::uint64_t line = first + j * workers;
        if (line >= lines) break;
        Pack<T> result;
#pragma unroll
        for (int k = 0; k < kLine; ++k) {
          T values[kRanks];
#pragma unroll
          for (int r = 0; r < kRanks; ++r) values[r] = packs[j][r].elements[k];
          result.elements[k] = combine_sources<T, Op, kRanks>(values, average_over);
        }
        store_pack(reinterpret_cast<Pack<T>*>(out) + line, result);
      }
    }
    scalar_begin = lines * kLine;
  }
  for (std::uint64_t i = scalar_begin + worker; i < args.count; i += workers) {
    T values[kRanks];
#pragma unroll
    for (int r = 0; r < kRanks; ++r) {
      values[r] = load_element_shared(static_cast<const T*>(args.sources[r]) + i);
    }
    out[i] = combine_sources<T, Op, kRanks>(values, average_over);
  }
}

// The instantiation ReduceSourcesArgs::sms runs: kPacksInFlight packs per thread.
template <typename T, typename Op, int kRanks>
auto few_sm_kernel() {
  constexpr int kLines = kPacksInFlight / kRanks > 1 ? kPacksInFlight / kRanks : 1;
  return reduce_sources_kernel<T, Op, kRanks, kLines>;
}

bool is_aligned(const void* pointer) {
  return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0;
}

}  // namespace

void launch_reduce_sources(const ReduceSourcesArgs& args, cudaStream_t stream) {
  if (args.count == 0) return;
  bool aligned = is_aligned(args.out);
  for (int r = 0; r < args.nranks && r < kMaxPeerRanks; ++r) {
    aligned = aligned && is_aligned(args.sources[r]);
  }
  with_reduction(args.type, args.reduction, [&](auto element, auto op) {
    with_rank_count(args.nranks, [&](auto ranks) {
      using T = decltype(element);
      constexpr int kRanks = decltype(ranks)::value;
      if (args.sms > 0) {
        const auto kernel = few_sm_kernel<T, decltype(op), kRanks>();
        // Per device and idempotent (preload_reduce_sources does it too); a failure surfaces at
        // the launch below.
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             kSmReservationBytes);
        kernel<<<static_cast<unsigned>(args.sms), kThreads, kSmReservationBytes, stream>>>(args,
                                                                                           aligned);
        return;
      }
      const std::uint64_t lines = (args.count + Pack<T>::kCount - 1) / Pack<T>::kCount;
      std::uint64_t blocks = (lines + kThreads - 1) / kThreads;
      // More would only take SMs from concurrent work; the grid-stride loop covers the rest.
      const std::uint64_t most = args.max_blocks > 0 ? static_cast<std::uint64_t>(args.max_blocks)
                                                     : kReduceSourcesMaxBlocks;
      if (blocks > most) blocks = most;
      reduce_sources_kernel<T, decltype(op), kRanks, 1>
          <<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(args, aligned);
    });
  });
}

cudaError_t preload_reduce_sources(ElementType type, Reduction reduction, int nranks, int sms) {
  cudaError_t status = cudaSuccess;
  with_reduction(type, reduction, [&](auto element, auto op) {
    with_rank_count(nranks, [&](auto ranks) {
      using T = decltype(element);
      constexpr int kRanks = decltype(ranks)::value;
      cudaFuncAttributes attributes{};
      if (sms > 0) {
        const auto kernel = few_sm_kernel<T, decltype(op), kRanks>();
        status = cudaFuncGetAttributes(&attributes, kernel);
        if (status == cudaSuccess) {
          status = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        kSmReservationBytes);
        }
      } else {
        status =
            cudaFuncGetAttributes(&attributes, reduce_sources_kernel<T, decltype(op), kRanks, 1>);
      }
    });
  });
  return status;
}

}  // namespace collbench::kernels
