// ring_sendrecv's reduction kernel: a grid-wide out = op(incoming, own) using the ring's piece
// mover, so the textbook variant and the hand-built ring do the same arithmetic.
#include <cstdint>

#include "reduce_dispatch.cuh"
#include "ring/ring_piece.cuh"
#include "ring_sendrecv/ring_sendrecv_reduce.hpp"

namespace collbench::kernels {
namespace {

constexpr int kThreads = 512;

template <typename T, typename Op>
__global__ void __launch_bounds__(kThreads) reduce_into_kernel(ReduceIntoArgs args, bool aligned) {
  const std::uint64_t worker = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  const std::uint64_t workers = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  const PieceOperands<T> piece{static_cast<T*>(args.out), nullptr,
                               static_cast<const T*>(args.incoming),
                               static_cast<const T*>(args.own)};
  move_piece<T, Op, true, false>(piece, args.count, args.average_now, args.nranks, aligned, worker,
                                 workers);
}

bool is_aligned(const void* pointer) {
  return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0;
}

}  // namespace

void launch_reduce_into(const ReduceIntoArgs& args, cudaStream_t stream) {
  if (args.count == 0) return;
  const bool aligned = is_aligned(args.out) && is_aligned(args.incoming) && is_aligned(args.own);
  with_reduction(args.type, args.reduction, [&](auto element, auto op) {
    using T = decltype(element);
    const std::uint64_t lines = (args.count + Pack<T>::kCount - 1) / Pack<T>::kCount;
    const std::uint64_t per_block = static_cast<std::uint64_t>(kThreads) * ring_unroll<T>();
    std::uint64_t blocks = (lines + per_block - 1) / per_block;
    if (blocks > 1024) blocks = 1024;  // plenty for any current GPU; the loop covers the rest
    reduce_into_kernel<T, decltype(op)>
        <<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(args, aligned);
  });
}

cudaError_t preload_reduce_into(ElementType type, Reduction reduction) {
  cudaError_t status = cudaSuccess;
  with_reduction(type, reduction, [&](auto element, auto op) {
    cudaFuncAttributes attributes{};
    status =
        cudaFuncGetAttributes(&attributes, reduce_into_kernel<decltype(element), decltype(op)>);
  });
  return status;
}

}  // namespace collbench::kernels
