// The input pattern and expected-output rules shared by the GPU fill/check kernels and the CPU
// reference: input element i on rank r is a function of (seed, r, i), chosen per data type and
// reduction so that any reduction order gives the exact same result (small integers, powers of 2).
#pragma once

#include <cstdint>

#include "host_device.hpp"

namespace collbench::kernels {

// Element types and reductions as the kernels see them (same order as
// collbench::DataType/ReduceOp).
enum class ElementType : int {
  int8,
  uint8,
  int32,
  uint32,
  int64,
  uint64,
  half,
  float32,
  float64,
  bfloat16
};
enum class Reduction : int { sum, prod, max, min, avg, none };

// Where output element j on rank k comes from, with c = the per-rank block (the call's count).
enum class SourceRank : int {
  all_reduced,     // the reduction over every rank
  root,            // the root's input
  output_block,    // rank j / c (gather-like outputs hold one block per source rank)
  previous_rank,   // rank (k - 1 + n) % n (ring neighbour exchange)
  segment_source,  // the source of the receive segment holding j (alltoallv: ReceiveSegments)
};
enum class SourceIndex : int {
  same,                 // j
  within_block,         // j % c
  rank_block,           // k * c + j
  rank_block_in_block,  // k * c + j % c
  segment_offset,       // the segment's start in its source's send buffer + j's place in it
};
struct OutputRule {
  SourceRank rank;
  SourceIndex index;
  bool root_only;  // only the root's output is defined (reduce, gather)
};

struct PatternParams {
  std::uint64_t seed;
  int nranks;
  int root;
  std::uint64_t block;  // c above
  ElementType type;
  Reduction reduction;
  // The output rank's receive segments (layout below): alltoallv only, null otherwise. A device
  // pointer for the GPU check, a host one for CPU references.
  const std::uint64_t* segments = nullptr;
};

// ReceiveSegments: alltoallv's table of one rank k, n ranks, 2n + 1 entries. Entries [0, n] are
// where the segment from each source starts in k's receive buffer (segments lie in rank order;
// an empty one starts where the next does), entry n being all k receives; entries [n + 1, 2n]
// where each source's segment for k starts in that source's send buffer.

// The source whose segment holds receive element j (< the received total): the last source whose
// segment starts at or before j, found by binary search.
CB_HOST_DEVICE inline int segment_source(const PatternParams& p, std::uint64_t j) {
  int low = 0, high = p.nranks - 1;
  while (low < high) {
    const int middle = (low + high + 1) / 2;
    if (p.segments[middle] <= j) {
      low = middle;
    } else {
      high = middle - 1;
    }
  }
  return low;
}

// Whether output element j lies past what its rank receives: alltoallv ranks receive different
// totals into buffers sized for the most, and the rest must keep the poison it was given.
CB_HOST_DEVICE inline bool beyond_received(const PatternParams& p, const OutputRule& rule,
                                           std::uint64_t j) {
  return rule.rank == SourceRank::segment_source && j >= p.segments[p.nranks];
}

// A well-mixed 32-bit code for (seed, rank, index): splitmix64's finaliser.
CB_HOST_DEVICE inline std::uint32_t pattern_code(std::uint64_t seed, int rank,
                                                 std::uint64_t index) {
  std::uint64_t z = seed ^ (static_cast<std::uint64_t>(rank) * 0x9E3779B97F4A7C15ull) ^
                    (index * 0xBF58476D1CE4E5B9ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return static_cast<std::uint32_t>(z ^ (z >> 31));
}

// Largest input or result magnitude used for a type: within what it represents exactly, and for
// 8-bit types short of the poison values (127, 255) so an unwritten output can never match.
CB_HOST_DEVICE inline std::int64_t value_limit(ElementType type) {
  switch (type) {
    case ElementType::int8:
      return 100;
    case ElementType::uint8:
      return 200;
    case ElementType::half:
      return 2048;
    case ElementType::bfloat16:
      return 256;
    default:
      return 1 << 20;  // int32 and wider, float (2^24) and double: keep sums far inside
  }
}

CB_HOST_DEVICE inline bool is_unsigned(ElementType type) {
  return type == ElementType::uint8 || type == ElementType::uint32 || type == ElementType::uint64;
}

// Input value of element `index` on `rank`, as a double that the element type holds exactly.
// sum/avg: integers in [-R, R] (unsigned: [0, R]) with n*R within the exact range, so every
//          summation order is exact; avg on integers uses non-negative values (NCCL divides the
//          sum).
// prod:    1, 2 or -1 (unsigned: 1 or 2): products are powers of two, exact in any order.
// max/min and non-reducing ops: a wide spread of integers.
CB_HOST_DEVICE inline double input_value(const PatternParams& p, int rank, std::uint64_t index) {
  const std::uint32_t code = pattern_code(p.seed, rank, index);
  const bool unsigned_type = is_unsigned(p.type);
  switch (p.reduction) {
    case Reduction::sum:
    case Reduction::avg: {
      std::int64_t range = value_limit(p.type) / (p.nranks > 0 ? p.nranks : 1);
      if (range > 100) range = 100;
      if (range < 1) range = 1;
      const bool non_negative =
          unsigned_type || (p.reduction == Reduction::avg && p.type <= ElementType::uint64);
      const std::int64_t span = non_negative ? range + 1 : 2 * range + 1;
      const std::int64_t value =
          static_cast<std::int64_t>(code % span) - (non_negative ? 0 : range);
      return static_cast<double>(value);
    }
    case Reduction::prod: {
      const std::uint32_t pick = code % 4;
      if (pick == 0) return 2.0;
      if (pick == 1 && !unsigned_type) return -1.0;
      return 1.0;
    }
    default: {
      const std::int64_t range = value_limit(p.type);
      if (unsigned_type) return static_cast<double>(code % (range + 1));
      return static_cast<double>(static_cast<std::int64_t>(code % (2 * range + 1)) - range);
    }
  }
}

// Byte written over output buffers before a checked run: a value no correct output can hold
// (NaN for floating types, 0x7F.. for signed and 0xFF.. for unsigned integers; see value_limit).
CB_HOST_DEVICE inline unsigned char poison_byte(ElementType type) {
  if (type == ElementType::int8 || type == ElementType::int32 || type == ElementType::int64)
    return 0x7F;
  return 0xFF;
}

// The input element that output element j on `rank` is made from (see SourceIndex).
CB_HOST_DEVICE inline std::uint64_t source_index(const PatternParams& p, const OutputRule& rule,
                                                 int rank, std::uint64_t j) {
  const std::uint64_t c = p.block > 0 ? p.block : 1;
  switch (rule.index) {
    case SourceIndex::within_block:
      return j % c;
    case SourceIndex::rank_block:
      return static_cast<std::uint64_t>(rank) * c + j;
    case SourceIndex::rank_block_in_block:
      return static_cast<std::uint64_t>(rank) * c + j % c;
    case SourceIndex::segment_offset: {
      const int source = segment_source(p, j);
      return p.segments[p.nranks + 1 + source] + (j - p.segments[source]);
    }
    default:
      return j;
  }
}

// Exact expected value of output element j on `rank`, as a double (see OutputRule). For integer
// types the caller wraps it into the type, as the GPU's integer arithmetic does. Not defined
// where beyond_received().
CB_HOST_DEVICE inline double expected_value(const PatternParams& p, const OutputRule& rule,
                                            int rank, std::uint64_t j) {
  const std::uint64_t index = source_index(p, rule, rank, j);
  const std::uint64_t c = p.block > 0 ? p.block : 1;
  switch (rule.rank) {
    case SourceRank::root:
      return input_value(p, p.root, index);
    case SourceRank::output_block:
      return input_value(p, static_cast<int>(j / c), index);
    case SourceRank::previous_rank:
      return input_value(p, (rank - 1 + p.nranks) % p.nranks, index);
    case SourceRank::segment_source:
      return input_value(p, segment_source(p, j), index);
    default:
      break;
  }
  double result = input_value(p, 0, index);
  for (int r = 1; r < p.nranks; ++r) {
    const double value = input_value(p, r, index);
    switch (p.reduction) {
      case Reduction::prod:
        result *= value;
        break;
      case Reduction::max:
        result = value > result ? value : result;
        break;
      case Reduction::min:
        result = value < result ? value : result;
        break;
      default:
        result += value;
        break;  // sum, avg
    }
  }
  if (p.reduction == Reduction::avg) {
    if (p.type <= ElementType::uint64) {
      // NCCL averages integers by dividing the sum; values are non-negative, so truncation is
      // floor.
      return static_cast<double>(static_cast<std::int64_t>(result) / p.nranks);
    }
    return result / p.nranks;
  }
  return result;
}

// Tolerance for comparing a floating-point average: NCCL pre-scales each input by 1/n, so each of
// the n terms may round once. Every other case is exact.
CB_HOST_DEVICE inline double average_tolerance(const PatternParams& p, double expected) {
  double epsilon = 1.0 / (1 << 23);
  if (p.type == ElementType::half) epsilon = 1.0 / (1 << 10);
  if (p.type == ElementType::bfloat16) epsilon = 1.0 / (1 << 7);
  if (p.type == ElementType::float64) epsilon = 1.0 / (1ull << 52);
  const double magnitude = (expected < 0 ? -expected : expected) + 100.0;
  return 2.0 * (p.nranks + 1) * epsilon * magnitude;
}

}  // namespace collbench::kernels
