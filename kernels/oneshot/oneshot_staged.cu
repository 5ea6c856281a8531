// The staged one-shot all-reduce (64 KiB to 32 MiB): each block copies its portion of the input to
// this launch's scratch half, meets the same block of every peer at a flag barrier, then reads
// that portion from every rank and reduces it in rank order. Protocol: README.md, "oneshot".
#include "oneshot/oneshot_all_reduce.hpp"
#include "programmatic_launch.cuh"
#include "rank_order_reduce.cuh"
#include "reduce_dispatch.cuh"
#include "ring/ring_schedule.hpp"

namespace collbench::kernels {
namespace {

constexpr int kOneshotThreads = 512;
constexpr int kOneshotUnroll = 2;  // lines per thread in flight, each from every rank

// Portion `block` of the buffer: whole 16-byte lines except at the buffer's end.
__device__ inline ElementRange oneshot_portion(std::uint64_t count, int line_elements, int blocks,
                                               int block) {
  const RingGeometry g{count, 1, 1, 1, line_elements};
  const std::uint64_t lines = ring_line_count(g);
  return lines_to_elements(g, split_point(lines, blocks, block),
                           split_point(lines, blocks, block + 1));
}

// Copies this block's portion of the input into this launch's scratch half.
template <typename T>
__device__ inline void stage_input(T* scratch, const T* send, ElementRange range, bool aligned) {
  constexpr int kLine = Pack<T>::kCount;
  std::uint64_t scalar_begin = range.begin;
  if (aligned) {
    const std::uint64_t last = range.end / kLine;
    for (std::uint64_t line = range.begin / kLine + threadIdx.x; line < last; line += blockDim.x) {
      store_pack(reinterpret_cast<Pack<T>*>(scratch) + line,
                 load_pack(reinterpret_cast<const Pack<T>*>(send) + line));
    }
    if (last * kLine > scalar_begin) scalar_begin = last * kLine;
  }
  for (std::uint64_t i = scalar_begin + threadIdx.x; i < range.end; i += blockDim.x)
    scratch[i] = send[i];
}

template <typename T, typename Op, int kRanks>
__global__ void __launch_bounds__(kOneshotThreads) oneshot_staged_kernel(OneshotRankArgs args) {
  programmatic_launch_prologue();  // does nothing unless launched programmatically
  const int block = blockIdx.x;
  OneshotSignals* mine = args.signals[args.rank];
  __shared__ std::uint32_t launch;
  __shared__ bool stop;
  if (threadIdx.x == 0) {
    // Written by this slot's block in the previous launch; the kernel boundary orders it.
    launch = mine->staged_launches[block] + 1;
    stop = false;
  }
  __syncthreads();
  const std::uint64_t half_offset = (launch & 1u) ? args.scratch_half_bytes : 0;
  T* sources[kRanks];
#pragma unroll
  for (int r = 0; r < kRanks; ++r)
    sources[r] = reinterpret_cast<T*>(static_cast<char*>(args.scratch[r]) + half_offset);
  const ElementRange range = oneshot_portion(args.count, Pack<T>::kCount, gridDim.x, block);

  // Not sources[args.rank]: a run-time index would move the whole array to local memory.
  T* own_scratch = reinterpret_cast<T*>(static_cast<char*>(args.scratch[args.rank]) + half_offset);
  stage_input(own_scratch, static_cast<const T*>(args.send), range, args.aligned);
  __syncthreads();  // the whole portion is staged before any thread releases it
  const int peer = threadIdx.x;
  if (peer < kRanks && peer != args.rank) {
    publish_flag(&args.signals[peer]->arrived[block][args.rank], launch);
    std::uint32_t seen = 0;
    if (!wait_flag(&mine->arrived[block][peer], launch, args.abort, &seen)) stop = true;
  }
  __syncthreads();  // every peer's portion is staged; the acquires above cover all threads
  if (stop) return;

  const T* portions[kRanks];
#pragma unroll
  for (int r = 0; r < kRanks; ++r) portions[r] = sources[r] + range.begin;
  T* const outputs[1] = {static_cast<T*>(args.recv) + range.begin};
  reduce_in_rank_order<T, Op, kRanks, 1, kOneshotUnroll>(
      outputs, portions, range.end - range.begin, args.reduction == Reduction::avg ? kRanks : 0,
      args.aligned, threadIdx.x, blockDim.x);
  if (threadIdx.x == 0) mine->staged_launches[block] = launch;
}

}  // namespace

namespace detail {

void launch_oneshot_staged(const OneshotRankArgs& args, cudaStream_t stream) {
  // Enough blocks for one line per thread, up to the flag slots; every rank computes the same.
  const std::uint64_t lines = (args.count * element_size(args.type) + 15) / 16;
  const std::uint64_t wanted = (lines + kOneshotThreads - 1) / kOneshotThreads;
  const int blocks =
      static_cast<int>(wanted < 1 ? 1 : (wanted > kOneshotMaxBlocks ? kOneshotMaxBlocks : wanted));
  with_reduction(args.type, args.reduction, [&](auto element, auto op) {
    with_rank_count(args.nranks, [&](auto ranks) {
      launch_kernel(oneshot_staged_kernel<decltype(element), decltype(op), decltype(ranks)::value>,
                    blocks, kOneshotThreads, stream, args.programmatic, args);
    });
  });
}

}  // namespace detail

}  // namespace collbench::kernels
