// The push ring's kernel (README.md, "ring") and the count waits both ring kernels share.
#pragma once

#include <cstdint>

#include "peer_flags.cuh"
#include "reduce_ops.cuh"
#include "ring/ring_all_reduce.hpp"
#include "ring/ring_piece.cuh"
#include "ring/ring_schedule.hpp"

#if defined(__CUDACC__)

namespace collbench::kernels {

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

// push: task i waits for the message it consumes (arrived) and for a free slot at rank + 1
// (freed), moves its piece with local loads and remote stores, then releases one arrival to
// rank + 1 and, if it consumed a staging slot, one free slot to rank - 1. The kernel ends once
// every message for this launch has arrived; it never reads another rank's memory.
template <typename T, typename Op>
__global__ void __launch_bounds__(kRingThreads) ring_push_kernel(RingRankArgs args) {
  const RingGeometry& g = args.geometry;
  const int part = blockIdx.x;
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
    std::uint32_t now = 0;
    if (!count_reached(arrived_seen, all_arrived)) {
      if (!wait_flag(&mine->arrived[part], all_arrived, args.abort, &now)) return;
    }
    mine->received[part] = all_arrived;
    mine->staged[part] = staged_base + ring_push_staged(g);
  }
}

}  // namespace collbench::kernels

#endif  // __CUDACC__
