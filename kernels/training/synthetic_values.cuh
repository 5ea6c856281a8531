// The synthetic model: initial weights, biases, inputs and targets as pure functions of
// (seed, stream key, index), shared by the GPU initialisation kernels and the CPU reference in the
// tests, so both start from bit-identical float values.
#pragma once

#include <cmath>
#include <cstdint>

#include "host_device.hpp"

namespace collbench::kernels::training {

// Which quantity a value belongs to; each (stream, layer) pair draws from its own sequence.
enum class ValueStream : std::uint32_t { weight = 1, bias = 2, input = 3, target = 4 };

CB_HOST_DEVICE inline std::uint64_t stream_key(ValueStream stream, int layer) {
  return (static_cast<std::uint64_t>(stream) << 32) | static_cast<std::uint32_t>(layer);
}

// splitmix64's finaliser: every input bit affects every output bit.
CB_HOST_DEVICE inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// A float in [-1, 1) on a grid of 2^-23: the top 24 hash bits, scaled by a power of two and
// shifted by 1, so every step is exact in float and host and device agree bit for bit.
CB_HOST_DEVICE inline float uniform_value(std::uint64_t seed, std::uint64_t key,
                                          std::uint64_t index) {
  const std::uint64_t hash =
      mix64(mix64(seed ^ (key * 0x9E3779B97F4A7C15ull)) + index * 0xD1B54A32D192ED03ull);
  const float unit = static_cast<float>(hash >> 40) * (1.0f / 8388608.0f);  // [0, 2)
  return unit - 1.0f;
}

// Weight init bound for a ReLU layer (Kaiming uniform: variance 2 / fan_in keeps activations
// at a steady scale through the layers).
inline float weight_bound(int fan_in) {
  return std::sqrt(6.0f / static_cast<float>(fan_in));
}
// Bias init bound, as PyTorch's nn.Linear default.
inline float bias_bound(int fan_in) {
  return 1.0f / std::sqrt(static_cast<float>(fan_in));
}

// Initial value of one element: bound * uniform, one float multiply (the same on host and device).
CB_HOST_DEVICE inline float synthetic_value(std::uint64_t seed, std::uint64_t key,
                                            std::uint64_t index, float bound) {
  return bound * uniform_value(seed, key, index);
}

}  // namespace collbench::kernels::training
