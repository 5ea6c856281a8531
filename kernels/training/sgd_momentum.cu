// SGD with momentum: one pass over a contiguous range of parameters, 8 elements per thread and
// iteration with vector loads where the range is aligned, so the update runs near memory speed.
// The arithmetic is float32 whatever the stored types (as PyTorch's for a bfloat16 parameter).
#include "element_access.cuh"
#include "sgd_momentum.hpp"
#include "sgd_update.cuh"

namespace collbench::kernels::training {
namespace {

constexpr unsigned kThreads = 256;
constexpr int kPack = 8;

template <typename T, typename V>
__global__ void sgd_momentum_kernel(T* weights, const T* gradients, float* master, V* velocity,
                                    std::uint64_t count, SgdStep step, bool vectorised) {
  const std::uint64_t thread = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  std::uint64_t scalar_begin = 0;
  if (vectorised) {
    const std::uint64_t packs = count / kPack;
    for (std::uint64_t p = thread; p < packs; p += stride) {
      SgdOperands<T, V, kPack> o;
      o.gradient = reinterpret_cast<const Pack<T, kPack>*>(gradients)[p];
      load_sgd_state(o, weights, master, velocity, p);
      store_sgd_step(o, weights, master, velocity, p, step);
    }
    scalar_begin = packs * kPack;
  }
  for (std::uint64_t i = scalar_begin + thread; i < count; i += stride) {
    sgd_step_one(weights, gradients[i], master, velocity, i, step);
  }
}

template <typename T, typename V>
void launch_typed(const SgdTarget& target, const T* gradients, std::uint64_t count,
                  cudaStream_t stream) {
  T* weights = static_cast<T*>(target.weights);
  V* velocity = static_cast<V*>(target.velocity);
  const bool vectorised =
      aligned_to(weights, sizeof(Pack<T, kPack>)) &&
      aligned_to(gradients, sizeof(Pack<T, kPack>)) &&
      aligned_to(velocity, sizeof(Pack<V, kPack>)) &&
      (target.master == nullptr || aligned_to(target.master, sizeof(Pack<float, kPack>)));
  // Many short blocks (at most grid_for's 4096): an update overlapping backward fills the SMs
  // the GEMMs leave instead of holding SMs a GEMM's next blocks need.
  const unsigned blocks = grid_for(count / kPack + 1, kThreads);
  sgd_momentum_kernel<T, V><<<blocks, kThreads, 0, stream>>>(
      weights, gradients, target.master, velocity, count, target.step, vectorised);
}

}  // namespace

void launch_sgd_momentum(const SgdTarget& target, const void* gradients, std::uint64_t count,
                         cudaStream_t stream) {
  if (count == 0) return;
  with_sgd_types(target, "sgd_momentum", [&](auto weight, auto momentum) {
    using T = decltype(weight);
    launch_typed<T, decltype(momentum)>(target, static_cast<const T*>(gradients), count, stream);
  });
}

}  // namespace collbench::kernels::training
