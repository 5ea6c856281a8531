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

// Element `k` of every source combined in rank order, rounded once.
template <typename T, typename Op, int kRanks>
__device__ inline T combine_sources(const T (&values)[kRanks], int average_over) {
  accumulator_t<T> value = widen(values[0]);
#pragma unroll
  for (int r = 1; r < kRanks; ++r) value = Op::apply(value, widen(values[r]));
  if (average_over != 0) value = divide_by_ranks(value, average_over);
  return narrow<T>(value);
}

template <typename T, typename Op, int kRanks>
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
    for (std::uint64_t line = worker; line < lines; line += workers) {
      Pack<T> packs[kRanks];
#pragma unroll
      for (int r = 0; r < kRanks; ++r) {
        packs[r] = load_pack_shared(static_cast<const Pack<T>*>(args.sources[r]) + line);
      }
      Pack<T> result;
#pragma unroll
      for (int k = 0; k < kLine; ++k) {
        T values[kRanks];
#pragma unroll
        for (int r = 0; r < kRanks; ++r) values[r] = packs[r].elements[k];
        result.elements[k] = combine_sources<T, Op, kRanks>(values, average_over);
      }
      store_pack(reinterpret_cast<Pack<T>*>(out) + line, result);
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
      const std::uint64_t lines = (args.count + Pack<T>::kCount - 1) / Pack<T>::kCount;
      std::uint64_t blocks = (lines + kThreads - 1) / kThreads;
      // More would only take SMs from concurrent work; the grid-stride loop covers the rest.
      const std::uint64_t most = args.max_blocks > 0 ? static_cast<std::uint64_t>(args.max_blocks)
                                                     : kReduceSourcesMaxBlocks;
      if (blocks > most) blocks = most;
      reduce_sources_kernel<T, decltype(op), decltype(ranks)::value>
          <<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(args, aligned);
    });
  });
}

cudaError_t preload_reduce_sources(ElementType type, Reduction reduction, int nranks) {
  cudaError_t status = cudaSuccess;
  with_reduction(type, reduction, [&](auto element, auto op) {
    with_rank_count(nranks, [&](auto ranks) {
      cudaFuncAttributes attributes{};
      status = cudaFuncGetAttributes(
          &attributes,
          reduce_sources_kernel<decltype(element), decltype(op), decltype(ranks)::value>);
    });
  });
  return status;
}

}  // namespace collbench::kernels
