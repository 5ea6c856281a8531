// The 16-byte packed vector every hand-built collective moves data in: one pack is one 16-byte
// load or store by construction, whatever the element type. Loads from a peer's memory bypass
// L1 (ld.global.cg): L1 is not coherent, and a peer's buffer changes while a kernel runs.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>

namespace collbench::kernels {

template <typename T>
struct alignas(16) Pack {
  static constexpr int kCount = 16 / static_cast<int>(sizeof(T));
  T elements[kCount];
};

#if defined(__CUDACC__)

template <typename T>
__device__ inline Pack<T> pack_from_bits(uint4 bits) {
  Pack<T> pack;
  std::memcpy(&pack, &bits, sizeof(pack));
  return pack;
}

template <typename T>
__device__ inline uint4 pack_to_bits(const Pack<T>& pack) {
  uint4 bits;
  std::memcpy(&bits, &pack, sizeof(bits));
  return bits;
}

// This GPU's memory: an ordinary (L1-cached) load.
template <typename T>
__device__ inline Pack<T> load_pack(const Pack<T>* address) {
  return pack_from_bits<T>(*reinterpret_cast<const uint4*>(address));
}

// Memory another rank writes during the kernel (a peer's buffer, or a scratch buffer).
template <typename T>
__device__ inline Pack<T> load_pack_shared(const Pack<T>* address) {
  return pack_from_bits<T>(__ldcg(reinterpret_cast<const uint4*>(address)));
}

template <typename T>
__device__ inline void store_pack(Pack<T>* address, const Pack<T>& pack) {
  *reinterpret_cast<uint4*>(address) = pack_to_bits(pack);
}

// The unsigned integer as wide as T, for single-element loads through __ldcg.
template <int kBytes>
struct BitsOf;
template <>
struct BitsOf<1> {
  using type = unsigned char;
};
template <>
struct BitsOf<2> {
  using type = unsigned short;
};
template <>
struct BitsOf<4> {
  using type = unsigned int;
};
template <>
struct BitsOf<8> {
  using type = unsigned long long;
};

// One element of memory another rank writes during the kernel (tails and unaligned buffers).
template <typename T>
__device__ inline T load_element_shared(const T* address) {
  using Bits = typename BitsOf<sizeof(T)>::type;
  const Bits bits = __ldcg(reinterpret_cast<const Bits*>(address));
  T value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

#endif  // __CUDACC__

}  // namespace collbench::kernels
