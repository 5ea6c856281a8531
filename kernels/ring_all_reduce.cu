// The hand-built ring all-reduce: one kernel per rank runs all 2(n-1) steps of
// ring_schedule.hpp, pulling each piece from the previous rank over NVLink and reducing it on the
// fly, with per-CTA flags between ranks and no host round trip. Protocol: README.md, "ring".
#include <stdexcept>
#include <string>

#include "reduce_dispatch.cuh"
#include "ring_all_reduce.hpp"
#include "ring_piece.cuh"

namespace collbench::kernels {
namespace {

template <typename T, typename Op>
__global__ void __launch_bounds__(kRingThreads) ring_all_reduce_kernel(RingRankArgs args) {
  const int part = blockIdx.x;
  const RingGeometry& g = args.geometry;
  const bool average = args.reduction == Reduction::avg;
  const T* send = static_cast<const T*>(args.send);
  T* recv = static_cast<T*>(args.recv);
  const T* previous_send = static_cast<const T*>(args.previous_send);
  const T* previous_recv = static_cast<const T*>(args.previous_recv);

  __shared__ std::uint32_t base;  // this part's publish count before this launch
  __shared__ std::uint32_t seen;  // the latest count thread 0 acquired from the previous rank
  __shared__ bool stop;
  if (threadIdx.x == 0) {
    stop = false;
    // Written by this slot's CTA at the end of the previous launch; the kernel boundary orders it.
    base = args.signals->published[part];
    seen = base;
    // Our input is complete (stream order) and may be read from now on.
    publish_flag(&args.next_signals->ready[part], base + kRingInputReady);
  }
  __syncthreads();

  const int tasks = ring_task_count(g);
  for (int index = 0; index < tasks; ++index) {
    const RingTask task = ring_task(g, args.rank, index);
    // `seen` changes only between the barriers below, so every thread takes the same branch. When
    // an earlier acquire already covers this task, the earlier barrier ordered every thread after
    // it, and no barrier is needed: the CTA runs on while thread 0 finishes the last publish.
    if (!count_reached(seen, base + task.wait_for)) {
      __syncthreads();  // every thread has read `seen` before thread 0 moves it
      if (threadIdx.x == 0) {
        std::uint32_t now = 0;
        if (wait_flag(&args.signals->ready[part], base + task.wait_for, args.abort, &now)) {
          seen = now;
        } else {
          stop = true;
        }
      }
      __syncthreads();  // the acquire above now covers every thread's reads below
      if (stop) return;
    }
    const ElementRange piece = ring_piece(g, task.chunk, task.slice, part);
    const T* peer = task.peer_input ? previous_send : previous_recv;
    if (task.reduce) {
      move_piece<T, Op, true>(recv, peer, send, piece, average && task.finalize, g.nranks,
                              args.aligned, threadIdx.x, blockDim.x);
    } else {
      move_piece<T, Op, false>(recv, peer, nullptr, piece, false, g.nranks, args.aligned,
                               threadIdx.x, blockDim.x);
    }
    __syncthreads();  // every thread's stores are done before thread 0 releases them
    if (threadIdx.x == 0 && task.publish != 0) {
      publish_flag(&args.next_signals->ready[part], base + task.publish);
    }
  }

  if (threadIdx.x == 0) {
    const std::uint32_t launch = args.signals->launches[part] + 1;
    // We read the previous rank's buffers for the last time above (the barrier ordered it).
    publish_flag(&args.previous_signals->done[part], launch);
    // Our buffers belong to the caller again only once the next rank has finished reading them.
    std::uint32_t done = 0;
    if (!wait_flag(&args.signals->done[part], launch, args.abort, &done)) return;
    args.signals->published[part] = base + ring_publish_count(g);
    args.signals->launches[part] = launch;
  }
}

}  // namespace

void launch_ring_all_reduce(const RingRankArgs& args, cudaStream_t stream) {
  const RingGeometry& g = args.geometry;
  if (g.parts < 1 || g.parts > kRingMaxParts || g.slices < 1 || g.nranks < 2) {
    throw std::invalid_argument("ring all-reduce: bad geometry (parts " + std::to_string(g.parts) +
                                ", slices " + std::to_string(g.slices) + ", ranks " +
                                std::to_string(g.nranks) + ")");
  }
  with_reduction(args.type, args.reduction, [&](auto element, auto op) {
    using T = decltype(element);
    if (g.line_elements != Pack<T>::kCount) {
      throw std::invalid_argument("ring all-reduce: line_elements " +
                                  std::to_string(g.line_elements) +
                                  " does not match the element type");
    }
    ring_all_reduce_kernel<T, decltype(op)><<<g.parts, kRingThreads, 0, stream>>>(args);
  });
}

}  // namespace collbench::kernels
