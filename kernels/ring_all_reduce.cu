// The hand-built ring all-reduce: one kernel per rank runs every step of ring_schedule.hpp, moving
// each piece over NVLink and reducing it on the fly, with per-CTA flags between ranks and no host
// round trip. Two protocols: push (remote stores into the next rank's staging slots and output;
// every load is local) and pull (remote loads from the previous rank's buffers). Protocol:
// README.md, "ring".
#include <stdexcept>
#include <string>

#include "reduce_dispatch.cuh"
#include "ring_all_reduce.hpp"
#include "ring_piece.cuh"

namespace collbench::kernels {
namespace {

// A count a CTA may have to wait for: `flag` (nullptr: nothing to wait for) reaching `target`,
// and `seen`, in shared memory, the latest count the CTA's waiting thread acquired from it.
struct CountWait {
  std::uint32_t* flag;
  std::uint32_t target;
  std::uint32_t* seen;
};

// A waiting thread's part of wait_for_counts: acquires the count into `*seen`, or sets `*stop`.
__device__ inline void acquire_count(const CountWait& wait, const PeerAbort& abort, bool* stop) {
  std::uint32_t now = 0;
  if (wait_flag(wait.flag, wait.target, abort, &now)) {
    *wait.seen = now;
  } else {
    *stop = true;
  }
}

// Every thread of the CTA calls this with the same arguments. Thread 0 acquires the first count,
// thread 32 (another warp, so both polls run at once) the second, and a barrier orders every
// thread's following accesses after those acquires. The `seen` counts change only between the
// two barriers, so every thread takes the same branch; when counts acquired earlier already cover
// both targets, the barrier after that acquire ordered every thread, and no barrier is needed
// (the CTA runs on while thread 0 completes its last release). Returns false when the kernel must
// stop (abort or timeout; `*stop` tells every thread).
__device__ inline bool wait_for_counts(const CountWait& first, const CountWait& second,
                                       const PeerAbort& abort, bool* stop) {
  const bool first_due = first.flag != nullptr && !count_reached(*first.seen, first.target);
  const bool second_due = second.flag != nullptr && !count_reached(*second.seen, second.target);
  if (!first_due && !second_due) return true;
  __syncthreads();  // every thread has read the `seen` counts before a waiter moves them
  if (threadIdx.x == 0 && first_due) acquire_count(first, abort, stop);
  if (threadIdx.x == 32 && second_due) acquire_count(second, abort, stop);
  __syncthreads();  // the acquires above now cover every thread's accesses below
  return !*stop;
}

__device__ inline CountWait no_wait() {
  return {nullptr, 0, nullptr};
}

// ---------------------------------------------------------------------------------------------
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

// ---------------------------------------------------------------------------------------------
// push: task i waits for the message it consumes (arrived) and for a free slot at rank + 1
// (freed), moves its piece with local loads and remote stores, then releases one arrival to
// rank + 1 and, if it consumed a staging slot, one free slot to rank - 1. The kernel ends once
// every message for this launch has arrived; it never reads another rank's memory.

template <typename T, typename Op>
__global__ void __launch_bounds__(kRingThreads) ring_push_kernel(RingRankArgs args) {
  const int part = blockIdx.x;
  const RingGeometry& g = args.geometry;
  const int slots = args.slots;
  const bool average = args.reduction == Reduction::avg;
  const T* send = static_cast<const T*>(args.send);
  T* recv = static_cast<T*>(args.recv);
  T* next_recv = static_cast<T*>(args.next_recv);
  const T* staging = static_cast<const T*>(args.staging);
  T* next_staging = static_cast<T*>(args.next_staging);
  RingSignals* mine = args.signals;

  __shared__ std::uint32_t received_base;  // messages this part received before this launch
  __shared__ std::uint32_t staged_base;    // staging messages this part sent before this launch
  __shared__ std::uint32_t arrived_seen;   // latest `arrived` count thread 0 acquired
  __shared__ std::uint32_t freed_seen;     // latest `freed` count thread 32 acquired
  __shared__ bool stop;
  if (threadIdx.x == 0) {
    stop = false;
    // Written by this slot's CTA at the end of the previous launch; the kernel boundary orders it.
    received_base = mine->received[part];
    staged_base = mine->staged[part];
    // Whatever already arrived or was freed (rank - 1 may be in this launch already); the
    // barrier below makes these acquires cover every thread.
    arrived_seen = read_flag(&mine->arrived[part]);
    freed_seen = read_flag(&mine->freed[part]);
  }
  __syncthreads();

  const int tasks = ring_task_count(g);
  for (int index = 0; index < tasks; ++index) {
    const RingPushTask task = ring_push_task(g, args.rank, index);
    const std::uint32_t read_message = staged_base + task.read_message;
    const std::uint32_t write_message = staged_base + task.write_message;
    const CountWait arrival{task.step == 0 ? nullptr : &mine->arrived[part],
                            received_base + task.wait_arrived, &arrived_seen};
    const CountWait credit{task.writes_staging ? &mine->freed[part] : nullptr,
                           ring_push_credit(write_message, slots), &freed_seen};
    if (!wait_for_counts(arrival, credit, args.abort, &stop)) return;

    const ElementRange range = ring_piece(g, task.chunk, task.slice, part);
    const std::uint64_t elements = range.end - range.begin;
    const T* slot_in =
        staging + ring_push_slot_offset(g, slots, part, ring_push_slot(read_message, slots));
    T* slot_out =
        next_staging + ring_push_slot_offset(g, slots, part, ring_push_slot(write_message, slots));
    switch (task.kind) {
      case RingPushKind::send_input:
        move_piece<T, Op, false, false>({slot_out, nullptr, send + range.begin, nullptr}, elements,
                                        false, g.nranks, args.aligned, threadIdx.x, blockDim.x);
        break;
      case RingPushKind::reduce_forward:
        move_piece<T, Op, true, false>({slot_out, nullptr, slot_in, send + range.begin}, elements,
                                       false, g.nranks, args.aligned, threadIdx.x, blockDim.x);
        break;
      case RingPushKind::finalize:
        move_piece<T, Op, true, true>(
            {recv + range.begin, next_recv + range.begin, slot_in, send + range.begin}, elements,
            average, g.nranks, args.aligned, threadIdx.x, blockDim.x);
        break;
      case RingPushKind::gather_forward:
        move_piece<T, Op, false, false>(
            {next_recv + range.begin, nullptr, recv + range.begin, nullptr}, elements, false,
            g.nranks, args.aligned, threadIdx.x, blockDim.x);
        break;
    }
    __syncthreads();  // every thread's loads are done and stores issued before the releases
    if (threadIdx.x == 0) {
      publish_flag(&args.next_signals->arrived[part], received_base + task.publish_arrived);
    } else if (threadIdx.x == 32 && task.reads_staging) {
      // Our loads of the slot are complete (their values were stored above): it may be refilled.
      publish_flag(&args.previous_signals->freed[part], read_message + 1);
    }
  }

  if (threadIdx.x == 0) {
    // The caller may use recv once every message of this launch (the last of each slice is
    // never forwarded, so no task waited for it) has landed.
    const std::uint32_t all_arrived = received_base + ring_push_arrivals(g);
    if (!count_reached(arrived_seen, all_arrived)) {
      std::uint32_t now = 0;
      if (!wait_flag(&mine->arrived[part], all_arrived, args.abort, &now)) return;
    }
    mine->received[part] = all_arrived;
    mine->staged[part] = staged_base + ring_push_staged(g);
  }
}

template <typename T>
void check_line_size(const RingGeometry& g) {
  if (g.line_elements != Pack<T>::kCount) {
    throw std::invalid_argument("ring all-reduce: line_elements " +
                                std::to_string(g.line_elements) +
                                " does not match the element type");
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
  with_reduction(args.type, args.reduction, [&](auto element, auto op) {
    using T = decltype(element);
    using Op = decltype(op);
    check_line_size<T>(g);
    if (push) {
      ring_push_kernel<T, Op><<<g.parts, kRingThreads, 0, stream>>>(args);
    } else {
      ring_pull_kernel<T, Op><<<g.parts, kRingThreads, 0, stream>>>(args);
    }
  });
}

}  // namespace collbench::kernels
