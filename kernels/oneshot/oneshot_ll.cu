// The low-latency one-shot all-reduce (up to 64 KiB): each thread pushes 8 bytes of its input to
// every peer's inbox as two 8-byte words, each half data and half launch count, both written by
// one 16-byte store; the peer polls its own memory until the counts match, so data and flag
// arrive together and no fence or barrier is needed. Then every rank reduces in rank order.
// README.md, "oneshot".
#include <cstring>

#include "oneshot/oneshot_all_reduce.hpp"
#include "programmatic_launch.cuh"
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

// Both words of a unit in one 16-byte store: a vector access is two 8-byte accesses to the memory
// model, each single-copy atomic, so a reader sees each word whole (data with its count), and a
// warp's stores fill whole 32-byte sectors over NVLink instead of half of each.
__device__ inline void store_words(std::uint64_t* words, std::uint64_t low, std::uint64_t high) {
  asm volatile("st.relaxed.sys.v2.u64 [%0], {%1, %2};" ::"l"(words), "l"(low), "l"(high)
               : "memory");
}

__device__ inline void load_words(std::uint64_t* words, std::uint64_t* low, std::uint64_t* high) {
  asm volatile("ld.relaxed.sys.v2.u64 {%0, %1}, [%2];"
               : "=l"(*low), "=l"(*high)
               : "l"(words)
               : "memory");
}

__device__ inline std::uint64_t word_of(std::uint32_t data, std::uint32_t launch) {
  return (static_cast<std::uint64_t>(launch) << 32) | data;
}

// Spins until both words carry `launch`; their data halves in *data. False when the kernel must
// stop.
__device__ __forceinline__ bool wait_words(std::uint64_t* words, std::uint32_t launch,
                                           const PeerAbort& abort, std::uint64_t* data) {
  std::uint64_t started_ns = 0;
  for (unsigned polls = 0;; ++polls) {
    std::uint64_t low = 0, high = 0;
    load_words(words, &low, &high);
    if (static_cast<std::uint32_t>(low >> 32) == launch &&
        static_cast<std::uint32_t>(high >> 32) == launch) {
      *data = (high << 32) | static_cast<std::uint32_t>(low);
      return true;
    }
    if (polls == 0) started_ns = global_timer_ns();
    if (polls != 0 && (polls & 1023u) == 0 && must_stop_waiting(abort, started_ns)) return false;
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
  programmatic_launch_prologue();  // does nothing unless launched programmatically
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
      store_words(inbox_words(args.inbox[peer], parity, args.rank, unit),
                  word_of(static_cast<std::uint32_t>(own), launch),
                  word_of(static_cast<std::uint32_t>(own >> 32), launch));
    }
    // Accumulated in rank order 0..n-1 on every rank: bitwise identical results everywhere.
    // (Indexing an array by args.rank would move it to local memory; hence the selects.)
    accumulator_t<T> sums[Unit<T>::kCount];
    bool complete = true;
#pragma unroll
    for (int source = 0; source < kRanks; ++source) {
      std::uint64_t bits = own;
      if (source != args.rank) {
        complete = complete && wait_words(inbox_words(args.inbox[args.rank], parity, source, unit),
                                          launch, args.abort, &bits);
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
      launch_kernel(
          oneshot_low_latency_kernel<decltype(element), decltype(op), decltype(ranks)::value>,
          blocks, threads, stream, args.programmatic, args);
    });
  });
}

}  // namespace detail

}  // namespace collbench::kernels
