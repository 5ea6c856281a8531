// splitmix64's finalizer: spreads keys of the check's hash tables (and alltoallv count sums)
// over all 64 bits.
#pragma once

#include <cstdint>

namespace collbench::replay {

inline std::uint64_t hash_mix(std::uint64_t value) {
  value += 0x9e3779b97f4a7c15ULL;
  value = (value ^ (value >> 30)) * 0xbf58476d1ce4e5b9ULL;
  value = (value ^ (value >> 27)) * 0x94d049bb133111ebULL;
  return value ^ (value >> 31);
}

}  // namespace collbench::replay
