// SGD with momentum on one pack of N consecutive parameters (or one parameter), loads first so
// that a thread keeps several memory requests in flight: shared by the standalone update
// (sgd_momentum.cu) and the update fused into the last bucket's twoshot (twoshot_sgd.cu), so
// both compute the same bits. The arithmetic is float32 whatever the stored types.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "element_access.cuh"
#include "sgd_momentum.hpp"

namespace collbench::kernels::training {

// Calls body(T{}, V{}) with the CUDA types of `target`'s weights and momentum (float32, or the
// weights' own type); any other momentum type throws std::invalid_argument naming `kernel`.
template <typename Body>
void with_sgd_types(const SgdTarget& target, const char* kernel, Body&& body) {
  if (target.velocity_type != ElementType::float32 && target.velocity_type != target.type) {
    throw std::invalid_argument(std::string(kernel) +
                                ": momentum must be float32 or the weights' type");
  }
  with_training_type(target.type, kernel, [&](auto tag) {
    using T = decltype(tag);
    if (target.velocity_type == ElementType::float32) {
      body(T{}, float{});
    } else {
      body(T{}, T{});
    }
  });
}

// T: the model's weights and gradients; V: the momentum (float32, or T itself).
template <typename T, typename V, int N>
struct SgdOperands {
  Pack<T, N> gradient;  // loaded by the caller, which knows where the values come from
  Pack<V, N> velocity;
  Pack<float, N> weight;  // the float32 master weight, or the weight widened
};

// Loads pack `pack`'s momentum and weights (from `master` when it is not null).
template <typename T, typename V, int N>
__device__ inline void load_sgd_state(SgdOperands<T, V, N>& o, const T* weights,
                                      const float* master, const V* velocity, std::uint64_t pack) {
  o.velocity = reinterpret_cast<const Pack<V, N>*>(velocity)[pack];
  if (master) {
    o.weight = reinterpret_cast<const Pack<float, N>*>(master)[pack];
  } else {
    const Pack<T, N> current = reinterpret_cast<const Pack<T, N>*>(weights)[pack];
#pragma unroll
    for (int j = 0; j < N; ++j) o.weight.v[j] = to_float(current.v[j]);
  }
}

// v = momentum * v + gradient_scale * g;  w = w - learning_rate * v, in `o`; returns w rounded to
// T. The weight moves by the momentum as stored (rounded to V), as PyTorch's update reads it.
template <typename T, typename V, int N>
__device__ inline Pack<T, N> apply_sgd_step(SgdOperands<T, V, N>& o, const SgdStep& step) {
  Pack<T, N> rounded;
#pragma unroll
  for (int j = 0; j < N; ++j) {
    o.velocity.v[j] = from_float<V>(step.momentum * to_float(o.velocity.v[j]) +
                                    step.gradient_scale * to_float(o.gradient.v[j]));
    o.weight.v[j] = o.weight.v[j] - step.learning_rate * to_float(o.velocity.v[j]);
    rounded.v[j] = from_float<T>(o.weight.v[j]);
  }
  return rounded;
}

// Stores pack `pack`'s momentum and master weight after apply_sgd_step (the model copy is the
// caller's: it may go to several ranks).
template <typename T, typename V, int N>
__device__ inline void store_sgd_state(const SgdOperands<T, V, N>& o, float* master, V* velocity,
                                       std::uint64_t pack) {
  reinterpret_cast<Pack<V, N>*>(velocity)[pack] = o.velocity;
  if (master) reinterpret_cast<Pack<float, N>*>(master)[pack] = o.weight;
}

// The step on pack `pack`, stored back.
template <typename T, typename V, int N>
__device__ inline void store_sgd_step(SgdOperands<T, V, N>& o, T* weights, float* master,
                                      V* velocity, std::uint64_t pack, const SgdStep& step) {
  const Pack<T, N> rounded = apply_sgd_step(o, step);
  store_sgd_state(o, master, velocity, pack);
  reinterpret_cast<Pack<T, N>*>(weights)[pack] = rounded;
}

// The same for element `i` alone, given its gradient, stored back; returns the new weight.
template <typename T, typename V>
__device__ inline T sgd_step_one(T* weights, T gradient, float* master, V* velocity,
                                 std::uint64_t i, const SgdStep& step) {
  const V v = from_float<V>(step.momentum * to_float(velocity[i]) +
                            step.gradient_scale * to_float(gradient));
  velocity[i] = v;
  const float w = (master ? master[i] : to_float(weights[i])) - step.learning_rate * to_float(v);
  if (master) master[i] = w;
  const T rounded = from_float<T>(w);
  weights[i] = rounded;
  return rounded;
}

}  // namespace collbench::kernels::training
