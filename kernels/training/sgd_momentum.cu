// SGD with momentum: one pass over a contiguous range of parameters, 8 elements per thread and
// iteration with vector loads where the range is aligned, so the update runs near memory speed.
// The arithmetic is float32 whatever the stored types (as PyTorch's for a bfloat16 parameter).
#include "element_access.cuh"
#include "sgd_momentum.hpp"

namespace collbench::kernels::training {
namespace {

constexpr unsigned kThreads = 256;
constexpr int kPack = 8;

// T: the model's weights and gradients; V: the momentum (float32, or T itself).
template <typename T, typename V>
__device__ void update_one(T* weights, const T* gradients, float* master, V* velocity,
                           std::uint64_t i, SgdStep step) {
  // The weight moves by the momentum as stored (rounded to V), as PyTorch's update reads it.
  const V v = from_float<V>(step.momentum * to_float(velocity[i]) +
                            step.gradient_scale * to_float(gradients[i]));
  velocity[i] = v;
  const float w = (master ? master[i] : to_float(weights[i])) - step.learning_rate * to_float(v);
  if (master) master[i] = w;
  weights[i] = from_float<T>(w);
}

template <typename T, typename V>
__global__ void sgd_momentum_kernel(T* weights, const T* gradients, float* master, V* velocity,
                                    std::uint64_t count, SgdStep step, bool vectorised) {
  const std::uint64_t thread = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  std::uint64_t scalar_begin = 0;
  if (vectorised) {
    using Vec = Pack<T, kPack>;
    using VelocityVec = Pack<V, kPack>;
    using FloatVec = Pack<float, kPack>;
    const std::uint64_t packs = count / kPack;
    for (std::uint64_t p = thread; p < packs; p += stride) {
      // All loads first, so each thread keeps several memory requests in flight.
      const Vec g = reinterpret_cast<const Vec*>(gradients)[p];
      VelocityVec v = reinterpret_cast<const VelocityVec*>(velocity)[p];
      FloatVec w;
      if (master) {
        w = reinterpret_cast<const FloatVec*>(master)[p];
      } else {
        const Vec current = reinterpret_cast<const Vec*>(weights)[p];
#pragma unroll
        for (int j = 0; j < kPack; ++j) w.v[j] = to_float(current.v[j]);
      }
      Vec rounded;
#pragma unroll
      for (int j = 0; j < kPack; ++j) {
        v.v[j] = from_float<V>(step.momentum * to_float(v.v[j]) +
                               step.gradient_scale * to_float(g.v[j]));
        w.v[j] = w.v[j] - step.learning_rate * to_float(v.v[j]);
        rounded.v[j] = from_float<T>(w.v[j]);
      }
      reinterpret_cast<VelocityVec*>(velocity)[p] = v;
      if (master) reinterpret_cast<FloatVec*>(master)[p] = w;
      reinterpret_cast<Vec*>(weights)[p] = rounded;
    }
    scalar_begin = packs * kPack;
  }
  for (std::uint64_t i = scalar_begin + thread; i < count; i += stride) {
    update_one(weights, gradients, master, velocity, i, step);
  }
}

template <typename T, typename V>
void launch_typed(T* weights, const T* gradients, float* master, V* velocity, std::uint64_t count,
                  const SgdStep& step, cudaStream_t stream) {
  const bool vectorised = aligned_to(weights, sizeof(Pack<T, kPack>)) &&
                          aligned_to(gradients, sizeof(Pack<T, kPack>)) &&
                          aligned_to(velocity, sizeof(Pack<V, kPack>)) &&
                          (master == nullptr || aligned_to(master, sizeof(Pack<float, kPack>)));
  // Many short blocks (at most grid_for's 4096): an update overlapping backward fills the SMs
  // the GEMMs leave instead of holding SMs a GEMM's next blocks need.
  const unsigned blocks = grid_for(count / kPack + 1, kThreads);
  sgd_momentum_kernel<T, V><<<blocks, kThreads, 0, stream>>>(weights, gradients, master, velocity,
                                                             count, step, vectorised);
}

}  // namespace

void launch_sgd_momentum(ElementType type, void* weights, const void* gradients, float* master,
                         void* velocity, ElementType velocity_type, std::uint64_t count,
                         const SgdStep& step, cudaStream_t stream) {
  if (count == 0) return;
  if (velocity_type != ElementType::float32 && velocity_type != type) {
    throw std::invalid_argument("sgd_momentum: momentum must be float32 or the weights' type");
  }
  with_training_type(type, "sgd_momentum", [&](auto tag) {
    using T = decltype(tag);
    if (velocity_type == ElementType::float32) {
      launch_typed(static_cast<T*>(weights), static_cast<const T*>(gradients), master,
                   static_cast<float*>(velocity), count, step, stream);
    } else {
      launch_typed(static_cast<T*>(weights), static_cast<const T*>(gradients), master,
                   static_cast<T*>(velocity), count, step, stream);
    }
  });
}

}  // namespace collbench::kernels::training
