// The push ring's kernel (README.md, "ring"), in a header so that a caller can instantiate it with
// an epilogue of its own: extra warps in every CTA that run an element-wise pass over each piece
// of the output once that piece holds its final value on this rank (the training step's SGD
// update, kernels/training/ring_sgd.cu), beside the ring's threads, which never wait for them.
// Also the count waits both ring kernels share.
#pragma once

#include <cstdint>

#include "peer_flags.cuh"
#include "reduce_ops.cuh"
#include "ring_all_reduce.hpp"
#include "ring_piece.cuh"
#include "ring_schedule.hpp"

#if defined(__CUDACC__)

namespace collbench::kernels {

// Threads [kFirst, kFirst + kCount) of a CTA, which synchronise among themselves: the whole CTA
// (kBarrier 0, __syncthreads) or hardware barrier kBarrier, so that another group of the same CTA
// never has to reach it.
template <int kBarrier, int kFirst, int kCount>
struct ThreadGroup {
  static constexpr int kThreads = kCount;
  __device__ static void sync() {
    if constexpr (kBarrier == 0) {
      __syncthreads();
    } else {
      asm volatile("bar.sync %0, %1;" ::"n"(kBarrier), "n"(kCount) : "memory");
    }
  }
  __device__ static unsigned index() { return threadIdx.x - kFirst; }
};
// The ring's threads: the whole CTA without an epilogue, the first kRingThreads with one.
using WholeRingCta = ThreadGroup<0, 0, kRingThreads>;
using RingThreadsBesideEpilogue = ThreadGroup<1, 0, kRingThreads>;

// A count a group may have to wait for: `flag` (nullptr: nothing to wait for) reaching `target`,
// and `seen`, in shared memory, the latest count the group's waiting thread acquired from it.
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

// Every thread of `Group` calls this with the same arguments. The group's thread 0 acquires the
// first count, its thread 32 (another warp, so both polls run at once) the second, and a barrier
// orders every thread's following accesses after those acquires. The `seen` counts change only
// between the two barriers, so every thread takes the same branch; when counts acquired earlier
// already cover both targets, the barrier after that acquire ordered every thread, and no barrier
// is needed (the group runs on while thread 0 completes its last release). Returns false when the
// kernel must stop (abort or timeout; `*stop` tells every thread).
template <typename Group>
__device__ inline bool wait_for_counts(const CountWait& first, const CountWait& second,
                                       const PeerAbort& abort, bool* stop) {
  const bool first_due = first.flag != nullptr && !count_reached(*first.seen, first.target);
  const bool second_due = second.flag != nullptr && !count_reached(*second.seen, second.target);
  if (!first_due && !second_due) return true;
  Group::sync();  // every thread has read the `seen` counts before a waiter moves them
  if (Group::index() == 0 && first_due) acquire_count(first, abort, stop);
  if (Group::index() == 32 && second_due) acquire_count(second, abort, stop);
  Group::sync();  // the acquires above now cover every thread's accesses below
  return !*stop;
}

__device__ inline CountWait no_wait() {
  return {nullptr, 0, nullptr};
}

// The plain all-reduce: no epilogue warps.
struct NoRingEpilogue {
  static constexpr int kThreads = 0;
  template <typename T>
  __device__ void operator()(const T* /*output*/, std::uint64_t /*begin*/, std::uint64_t /*end*/,
                             unsigned /*worker*/, unsigned /*workers*/) const {}
};

// What the ring's threads tell the epilogue's through shared memory.
struct RingProgress {
  std::uint32_t finalized;  // slices whose owned-chunk piece this CTA has stored (finalize task)
  bool stop;                // the ring's threads stopped early (abort or timeout)
};

// The epilogue's threads of CTA `part`: every piece of the output this part moves, in the order
// it becomes final on this rank. Per slice: the owned chunk's piece, which this CTA's ring threads
// reduce last (after they report it in `progress`); the pieces the previous rank forwards at
// all-gather steps n .. 2n-3 (final once their message has arrived: the same count the ring
// thread that forwards them waits for); and the slice's last message, which no task consumes.
// Arrival counts are polled by the group's first thread and shared through a barrier, as the
// ring threads do.
template <typename T, typename Epilogue>
__device__ void run_ring_epilogue(const RingRankArgs& args, const Epilogue& epilogue,
                                  std::uint32_t received_base, std::uint32_t* arrived_seen,
                                  volatile RingProgress* progress) {
  using Group = ThreadGroup<2, kRingThreads, Epilogue::kThreads>;
  const RingGeometry& g = args.geometry;
  const int part = blockIdx.x;
  const int n = g.nranks;
  const int steps = ring_step_count(n);
  const T* output = static_cast<const T*>(args.recv);
  __shared__ bool stop;
  if (Group::index() == 0) stop = false;
  auto update = [&](int chunk, int slice) {
    const ElementRange range = ring_piece(g, chunk, slice, part);
    epilogue(output, range.begin, range.end, Group::index(), Group::kThreads);
  };
  auto arrived = [&](std::uint32_t count) {
    const CountWait wait{&args.signals->arrived[part], received_base + count, arrived_seen};
    return wait_for_counts<Group>(wait, no_wait(), args.abort, &stop);
  };
  for (int slice = 0; slice < g.slices; ++slice) {
    if (Group::index() == 0) {
      const std::uint32_t target = static_cast<std::uint32_t>(slice + 1);
      while (progress->finalized < target && !progress->stop) {
      }
      __threadfence_block();  // acquire: the ring threads' stores of the piece, before the flag
      stop = progress->finalized < target;  // read once, so every thread below agrees
    }
    Group::sync();
    if (stop) return;
    update(ring_owned_chunk(args.rank, n), slice);
    const std::uint32_t first_index = static_cast<std::uint32_t>(slice * steps);
    for (int step = n; step < steps; ++step) {
      if (!arrived(first_index + step)) return;
      update(((args.rank - step) % n + n) % n, slice);
    }
    if (!arrived(first_index + steps)) return;
    update(((args.rank - steps) % n + n) % n, slice);
  }
}

// push: task i waits for the message it consumes (arrived) and for a free slot at rank + 1
// (freed), moves its piece with local loads and remote stores, then releases one arrival to
// rank + 1 and, if it consumed a staging slot, one free slot to rank - 1. The kernel ends once
// every message for this launch has arrived; it never reads another rank's memory. With an
// epilogue, its Epilogue::kThreads threads follow the CTA's pieces (run_ring_epilogue).
template <typename T, typename Op, typename Epilogue>
__global__ void __launch_bounds__(kRingThreads + Epilogue::kThreads)
    ring_push_kernel(RingRankArgs args, Epilogue epilogue) {
  constexpr bool kWithEpilogue = Epilogue::kThreads > 0;
  using Ring = std::conditional_t<kWithEpilogue, RingThreadsBesideEpilogue, WholeRingCta>;
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
  __shared__ std::uint32_t epilogue_arrived_seen;  // the epilogue's own `arrived` acquires
  __shared__ RingProgress progress;
  __shared__ bool stop;
  if (threadIdx.x == 0) {
    stop = false;
    progress.finalized = 0;
    progress.stop = false;
    // Written by this slot's CTA at the end of the previous launch; the kernel boundary orders it.
    received_base = mine->received[part];
    staged_base = mine->staged[part];
    // Whatever already arrived or was freed (rank - 1 may be in this launch already); the
    // barrier below makes these acquires cover every thread.
    arrived_seen = read_flag(&mine->arrived[part]);
    epilogue_arrived_seen = arrived_seen;
    freed_seen = read_flag(&mine->freed[part]);
  }
  __syncthreads();
  volatile RingProgress* shared_progress = &progress;
  if constexpr (kWithEpilogue) {
    if (threadIdx.x >= kRingThreads) {
      run_ring_epilogue<T>(args, epilogue, received_base, &epilogue_arrived_seen,
                           shared_progress);
      return;
    }
  }
  // Tells the epilogue's threads, when the ring's stop early, not to wait for them.
  auto stop_ring = [&] {
    if constexpr (kWithEpilogue) {
      if (threadIdx.x == 0) shared_progress->stop = true;
    }
  };

  const int tasks = ring_task_count(g);
  for (int index = 0; index < tasks; ++index) {
    const RingPushTask task = ring_push_task(g, args.rank, index);
    const std::uint32_t read_message = staged_base + task.read_message;
    const std::uint32_t write_message = staged_base + task.write_message;
    const CountWait arrival{task.step == 0 ? nullptr : &mine->arrived[part],
                            received_base + task.wait_arrived, &arrived_seen};
    const CountWait credit{task.writes_staging ? &mine->freed[part] : nullptr,
                           ring_push_credit(write_message, slots), &freed_seen};
    if (!wait_for_counts<Ring>(arrival, credit, args.abort, &stop)) {
      stop_ring();
      return;
    }

    const ElementRange range = ring_piece(g, task.chunk, task.slice, part);
    const std::uint64_t elements = range.end - range.begin;
    const T* slot_in =
        staging + ring_push_slot_offset(g, slots, part, ring_push_slot(read_message, slots));
    T* slot_out =
        next_staging + ring_push_slot_offset(g, slots, part, ring_push_slot(write_message, slots));
    switch (task.kind) {
      case RingPushKind::send_input:
        move_piece<T, Op, false, false>({slot_out, nullptr, send + range.begin, nullptr}, elements,
                                        false, g.nranks, args.aligned, threadIdx.x, kRingThreads);
        break;
      case RingPushKind::reduce_forward:
        move_piece<T, Op, true, false>({slot_out, nullptr, slot_in, send + range.begin}, elements,
                                       false, g.nranks, args.aligned, threadIdx.x, kRingThreads);
        break;
      case RingPushKind::finalize:
        move_piece<T, Op, true, true>(
            {recv + range.begin, next_recv + range.begin, slot_in, send + range.begin}, elements,
            average, g.nranks, args.aligned, threadIdx.x, kRingThreads);
        break;
      case RingPushKind::gather_forward:
        move_piece<T, Op, false, false>(
            {next_recv + range.begin, nullptr, recv + range.begin, nullptr}, elements, false,
            g.nranks, args.aligned, threadIdx.x, kRingThreads);
        break;
    }
    Ring::sync();  // every thread's loads are done and stores issued before the releases
    if (threadIdx.x == 0) {
      publish_flag(&args.next_signals->arrived[part], received_base + task.publish_arrived);
      if constexpr (kWithEpilogue) {
        if (task.kind == RingPushKind::finalize) {
          __threadfence_block();  // release: the piece's stores, ordered by the barrier above
          shared_progress->finalized = static_cast<std::uint32_t>(task.slice + 1);
        }
      }
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

}  // namespace collbench::kernels

#endif  // __CUDACC__
