// The low-latency one-shot all-reduce (up to 64 KiB): each thread pushes 8 bytes of its input to
// every peer's inbox as two 8-byte words, each half data and half launch count, written in one
// store; the peer polls its own memory until the count matches, so data and flag arrive together
// and no fence or barrier is needed. Then every rank reduces in rank order. README.md, "oneshot".
#include <cstring>

#include "oneshot_all_reduce.hpp"
#include "reduce_dispatch.cuh"

namespace collbench::kernels {
namespace {

constexpr int kMaxThreads = 256;

// 8 bytes of the buffer: the unit one thread moves.
template <typename T>
struct Unit {
  static constexpr int kCount = 8 / static_cast<int>(sizeof(T));
  T elements[kCount];
};

template <typename T>
__device__ inline std::uint64_t load_unit(const T* send, std::uint64_t unit, std::uint64_t count) {
  Unit<T> value;
#pragma unroll
  for (int k = 0; k < Unit<T>::kCount; ++k) {
    const std::uint64_t i = unit * Unit<T>::kCount + k;
    value.elements[k] = i < count ? send[i] : T{};  // past the end: padding nobody reads
  }
  std::uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

__device__ inline void store_word(std::uint64_t* word, std::uint32_t data, std::uint32_t launch) {
  cuda::atomic_ref<std::uint64_t, cuda::thread_scope_system>(*word).store(
      (static_cast<std::uint64_t>(launch) << 32) | data, cuda::memory_order_relaxed);
}

// Spins until `word` carries `launch`; its data half in *data. False when the kernel must stop.
__device__ __forceinline__ bool wait_word(std::uint64_t* word, std::uint32_t launch,
                                          const PeerAbort& abort, std::uint32_t* data) {
  cuda::atomic_ref<std::uint64_t, cuda::thread_scope_system> ref(*word);
  std::uint64_t started_ns = 0;
  for (unsigned polls = 0;; ++polls) {
    const std::uint64_t value = ref.load(cuda::memory_order_relaxed);
    if (static_cast<std::uint32_t>(value >> 32) == launch) {
      *data = static_cast<std::uint32_t>(value);
      return true;
    }
    if (polls == 0) started_ns = global_timer_ns();
    if (polls == 0 || (polls & 1023u) != 0) continue;
    if (read_abort_word(abort.word) != 0) return false;
    if (abort.timeout_ns != 0 && global_timer_ns() - started_ns > abort.timeout_ns) {
      cuda::atomic_ref<int, cuda::thread_scope_system>(*abort.word)
          .store(kAbortTimedOutBase + abort.rank, cuda::memory_order_relaxed);
      return false;
    }
  }
}

// The two words of `unit` from rank `source` in launch parity `parity` of an inbox.
__device__ inline std::uint64_t* inbox_words(void* inbox, std::uint32_t parity, int source,
                                             std::uint64_t unit) {
  const std::uint64_t slot =
      (static_cast<std::uint64_t>(parity) * kOneshotMaxRanks + source) * kOneshotInboxUnits + unit;
  return static_cast<std::uint64_t*>(inbox) + 2 * slot;
}

template <typename T, typename Op, int kRanks>
__global__ void __launch_bounds__(kMaxThreads) oneshot_low_latency_kernel(OneshotRankArgs args) {
  const int block = blockIdx.x;
  OneshotSignals* mine = args.signals[args.rank];
  __shared__ std::uint32_t launch;
  __shared__ bool stop;
  if (threadIdx.x == 0) {
    // Written by this slot's block in the previous launch; the kernel boundary orders it.
    const std::uint32_t next = mine->low_latency_launches[block] + 1;
    // 0 is what a zeroed inbox holds, so never a launch count; after 2^32 launches skip to 2, which
    // keeps the parity alternating.
    launch = next == 0 ? 2 : next;
    stop = false;
  }
  __syncthreads();
  // Alternate launches use alternate halves: a peer already in launch e+1 writes the other half
  // while this rank still reads launch e's (it cannot reach e+2 before this rank has sent e+1).
  const std::uint32_t parity = launch & 1u;
  const std::uint64_t unit = static_cast<std::uint64_t>(block) * blockDim.x + threadIdx.x;
  const std::uint64_t units = (args.count * sizeof(T) + 7) / 8;
  if (unit < units) {
    const T* send = static_cast<const T*>(args.send);
    const std::uint64_t own = load_unit(send, unit, args.count);
#pragma unroll
    for (int peer = 0; peer < kRanks; ++peer) {
      if (peer == args.rank) continue;
      std::uint64_t* words = inbox_words(args.inbox[peer], parity, args.rank, unit);
      store_word(words, static_cast<std::uint32_t>(own), launch);
      store_word(words + 1, static_cast<std::uint32_t>(own >> 32), launch);
    }
    // Accumulated in rank order 0..n-1 on every rank: bitwise identical results everywhere.
    // (Indexing an array by args.rank would move it to local memory; hence the selects.)
    accumulator_t<T> sums[Unit<T>::kCount];
    bool complete = true;
#pragma unroll
    for (int source = 0; source < kRanks; ++source) {
      std::uint64_t bits = own;
      if (source != args.rank) {
        std::uint64_t* words = inbox_words(args.inbox[args.rank], parity, source, unit);
        std::uint32_t low = 0, high = 0;
        complete = complete && wait_word(words, launch, args.abort, &low) &&
                   wait_word(words + 1, launch, args.abort, &high);
        bits = (static_cast<std::uint64_t>(high) << 32) | low;
      }
      Unit<T> values;
      std::memcpy(&values, &bits, sizeof(values));
#pragma unroll
      for (int k = 0; k < Unit<T>::kCount; ++k) {
        sums[k] =
            source == 0 ? widen(values.elements[k]) : Op::apply(sums[k], widen(values.elements[k]));
      }
    }
    if (complete) {
      T* recv = static_cast<T*>(args.recv);
#pragma unroll
      for (int k = 0; k < Unit<T>::kCount; ++k) {
        accumulator_t<T> value = sums[k];
        if (args.reduction == Reduction::avg) value = divide_by_ranks(value, kRanks);
        const std::uint64_t i = unit * Unit<T>::kCount + k;
        if (i < args.count) recv[i] = narrow<T>(value);
      }
    } else {
      stop = true;
    }
  }
  __syncthreads();
  // An aborted launch leaves the count alone; prepare() zeroes all flags before the next case.
  if (threadIdx.x == 0 && !stop) mine->low_latency_launches[block] = launch;
}

}  // namespace

namespace detail {

void launch_oneshot_low_latency(const OneshotRankArgs& args, cudaStream_t stream) {
  // One thread per 8-byte unit; a single warp for the tiniest messages.
  const std::uint64_t units = (args.count * element_size(args.type) + 7) / 8;
  const int threads = units >= kMaxThreads ? kMaxThreads : static_cast<int>((units + 31) / 32 * 32);
  const int blocks = static_cast<int>((units + threads - 1) / threads);
  if (units > kOneshotInboxUnits || blocks > kOneshotMaxBlocks) {
    throw std::invalid_argument("oneshot all-reduce: " + std::to_string(units * 8) +
                                " B is too large for the low-latency kernel");
  }
  with_reduction(args.type, args.reduction, [&](auto element, auto op) {
    with_rank_count(args.nranks, [&](auto ranks) {
      oneshot_low_latency_kernel<decltype(element), decltype(op), decltype(ranks)::value>
          <<<blocks, threads, 0, stream>>>(args);
    });
  });
}

}  // namespace detail

}  // namespace collbench::kernels
