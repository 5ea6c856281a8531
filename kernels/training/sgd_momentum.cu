// SGD with momentum: one pass over a contiguous range of parameters, 8 elements per thread and
// iteration with 16-byte loads where the range is aligned, so the update runs near memory speed.
#include "element_access.cuh"
#include "sgd_momentum.hpp"

namespace collbench::kernels::training {
namespace {

constexpr unsigned kThreads = 256;
constexpr int kPack = 8;

template <typename T>
__device__ void update_one(T* weights, const T* gradients, float* master, float* velocity,
                           std::uint64_t i, SgdStep step) {
  const float v = step.momentum * velocity[i] + step.gradient_scale * to_float(gradients[i]);
  velocity[i] = v;
  const float w = (master ? master[i] : to_float(weights[i])) - step.learning_rate * v;
  if (master) master[i] = w;
  weights[i] = from_float<T>(w);
}

template <typename T>
__global__ void sgd_momentum_kernel(T* weights, const T* gradients, float* master, float* velocity,
                                    std::uint64_t count, SgdStep step, bool vectorised) {
  const std::uint64_t thread = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  std::uint64_t scalar_begin = 0;
  if (vectorised) {
    using Vec = Pack<T, kPack>;
    using FloatVec = Pack<float, 4>;
    const std::uint64_t packs = count / kPack;
    for (std::uint64_t p = thread; p < packs; p += stride) {
      // All loads first, so each thread keeps several memory requests in flight.
      const Vec g = reinterpret_cast<const Vec*>(gradients)[p];
      FloatVec v[2] = {reinterpret_cast<const FloatVec*>(velocity)[2 * p],
                       reinterpret_cast<const FloatVec*>(velocity)[2 * p + 1]};
      FloatVec w[2];
      if (master) {
        w[0] = reinterpret_cast<const FloatVec*>(master)[2 * p];
        w[1] = reinterpret_cast<const FloatVec*>(master)[2 * p + 1];
      } else {
        const Vec current = reinterpret_cast<const Vec*>(weights)[p];
#pragma unroll
        for (int j = 0; j < kPack; ++j) w[j / 4].v[j % 4] = to_float(current.v[j]);
      }
      Vec rounded;
#pragma unroll
      for (int j = 0; j < kPack; ++j) {
        float& vj = v[j / 4].v[j % 4];
        float& wj = w[j / 4].v[j % 4];
        vj = step.momentum * vj + step.gradient_scale * to_float(g.v[j]);
        wj = wj - step.learning_rate * vj;
        rounded.v[j] = from_float<T>(wj);
      }
      reinterpret_cast<FloatVec*>(velocity)[2 * p] = v[0];
      reinterpret_cast<FloatVec*>(velocity)[2 * p + 1] = v[1];
      if (master) {
        reinterpret_cast<FloatVec*>(master)[2 * p] = w[0];
        reinterpret_cast<FloatVec*>(master)[2 * p + 1] = w[1];
      }
      reinterpret_cast<Vec*>(weights)[p] = rounded;
    }
    scalar_begin = packs * kPack;
  }
  for (std::uint64_t i = scalar_begin + thread; i < count; i += stride) {
    update_one(weights, gradients, master, velocity, i, step);
  }
}

}  // namespace

void launch_sgd_momentum(ElementType type, void* weights, const void* gradients, float* master,
                         float* velocity, std::uint64_t count, const SgdStep& step,
                         cudaStream_t stream) {
  if (count == 0) return;
  with_training_type(type, "sgd_momentum", [&](auto tag) {
    using T = decltype(tag);
    const bool vectorised = aligned_to(weights, sizeof(T) * kPack) &&
                            aligned_to(gradients, sizeof(T) * kPack) && aligned_to(velocity, 16) &&
                            (master == nullptr || aligned_to(master, 16));
    // Many short blocks (at most grid_for's 4096): an update overlapping backward fills the SMs
    // the GEMMs leave instead of holding SMs a GEMM's next blocks need.
    const unsigned blocks = grid_for(count / kPack + 1, kThreads);
    sgd_momentum_kernel<T><<<blocks, kThreads, 0, stream>>>(
        static_cast<T*>(weights), static_cast<const T*>(gradients), master, velocity, count, step,
        vectorised);
  });
}

}  // namespace collbench::kernels::training
