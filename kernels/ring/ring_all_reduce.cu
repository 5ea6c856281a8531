// The hand-built ring all-reduce: one kernel per rank runs every step of ring_schedule.hpp, moving
// each piece over NVLink and reducing it on the fly, with per-CTA flags between ranks and no host
// round trip. Two protocols: push (remote stores into the next rank's staging slots and output;
// every load is local) and pull (remote loads from the previous rank's buffers). Protocol:
// README.md, "ring".
#include <stdexcept>
#include <string>

#include "reduce_dispatch.cuh"
#include "ring/ring_all_reduce.hpp"
#include "ring/ring_piece.cuh"
#include "ring/ring_push_kernel.cuh"

namespace collbench::kernels {
namespace {

// pull: task i reads rank - 1's piece (its input at step 0, its output later) once rank - 1
// published the count after writing it; at the end, an end barrier with rank + 1.

template <typename T, typename Op>
__global__ void __launch_bounds__(kRingThreads) ring_pull_kernel(RingRankArgs args) {
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
    const CountWait ready{&args.signals->ready[part], base + task.wait_for, &seen};
    if (!wait_for_counts(ready, no_wait(), args.abort, &stop)) return;
    const ElementRange range = ring_piece(g, task.chunk, task.slice, part);
    const std::uint64_t elements = range.end - range.begin;
    const T* peer = (task.peer_input ? previous_send : previous_recv) + range.begin;
    if (task.reduce) {
      move_piece<T, Op, true, false>({recv + range.begin, nullptr, peer, send + range.begin},
                                     elements, average && task.finalize, g.nranks, args.aligned,
                                     threadIdx.x, blockDim.x);
    } else {
      move_piece<T, Op, false, false>({recv + range.begin, nullptr, peer, nullptr}, elements, false,
                                      g.nranks, args.aligned, threadIdx.x, blockDim.x);
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

void check_ring_launch(const RingRankArgs& args, int line_elements) {
  const RingGeometry& g = args.geometry;
  if (g.parts < 1 || g.parts > kRingMaxParts || g.slices < 1 || g.nranks < 2) {
    throw std::invalid_argument("ring all-reduce: bad geometry (parts " + std::to_string(g.parts) +
                                ", slices " + std::to_string(g.slices) + ", ranks " +
                                std::to_string(g.nranks) + ")");
  }
  if (g.line_elements != line_elements) {
    throw std::invalid_argument("ring all-reduce: line_elements " +
                                std::to_string(g.line_elements) +
                                " does not match the element type");
  }
  const bool push = args.protocol == RingProtocol::push;
  if (push && !ring_push_slots_valid(args.slots)) {
    throw std::invalid_argument("ring all-reduce: " + std::to_string(args.slots) +
                                " staging slots (a power of two from 2 to " +
                                std::to_string(kRingMaxSlots) + " needed)");
  }
  if (push &&
      (args.staging == nullptr || args.next_staging == nullptr || args.next_recv == nullptr)) {
    throw std::invalid_argument("ring all-reduce: push needs staging and the next rank's output");
  }
}

void launch_ring_all_reduce(const RingRankArgs& args, cudaStream_t stream) {
  const RingGeometry& g = args.geometry;
  with_reduction(args.type, args.reduction, [&](auto element, auto op) {
    using T = decltype(element);
    using Op = decltype(op);
    check_ring_launch(args, Pack<T>::kCount);
    if (args.protocol == RingProtocol::push) {
      ring_push_kernel<T, Op><<<g.parts, kRingThreads, 0, stream>>>(args);
    } else {
      ring_pull_kernel<T, Op><<<g.parts, kRingThreads, 0, stream>>>(args);
    }
  });
}

}  // namespace collbench::kernels
