// The copy-engine all-reduce's reduction: out = op over every rank's piece, all of them already in
// this GPU's memory (the copy engines moved them), so the kernel is bound by local HBM, not NVLink.
#include <cstdint>

#include "copy_engine/reduce_sources.hpp"
#include "rank_order_reduce.cuh"
#include "reduce_dispatch.cuh"

namespace collbench::kernels {
namespace {

constexpr int kThreads = 512;

template <typename T, typename Op, int kRanks>
__global__ void __launch_bounds__(kThreads)
    reduce_sources_kernel(ReduceSourcesArgs args, bool aligned) {
  const std::uint64_t worker = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  const std::uint64_t workers = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  // 0: no division.
  const int average_over = args.reduction != Reduction::avg ? 0
                           : args.average_over != 0         ? args.average_over
                                                            : kRanks;
  T* const outputs[1] = {static_cast<T*>(args.out)};
  const T* sources[kRanks];
#pragma unroll
  for (int r = 0; r < kRanks; ++r) sources[r] = static_cast<const T*>(args.sources[r]);
  reduce_in_rank_order<T, Op, kRanks, 1, 1>(outputs, sources, args.count, average_over, aligned,
                                            worker, workers);
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
