// The push ring's kernel with an SGD epilogue: a second CTA per part that updates the parameters
// of each piece of the output once it is final, while the ring's CTA moves the next pieces.
#include <stdexcept>

#include "reduce_ops.cuh"
#include "ring_push_kernel.cuh"
#include "ring_sgd.hpp"
#include "sgd_update.cuh"

namespace collbench::kernels::training {
namespace {

// The epilogue ring_push_kernel runs on each final piece [begin, end) of the output (`gradients`).
template <typename T, typename V>
struct SgdEpilogue {
  static constexpr bool kActive = true;
  static constexpr int kLine = 16 / static_cast<int>(sizeof(T));  // a piece starts on a line
  static constexpr int kUnroll = 2;  // lines in flight per thread
  T* weights;
  float* master;
  V* velocity;
  SgdStep step;
  bool vectorised;  // every pointer, the output's included, is aligned to its pack

  __device__ void operator()(const T* gradients, std::uint64_t begin, std::uint64_t end,
                             unsigned worker, unsigned workers) const {
    std::uint64_t scalar_begin = begin;
    if (vectorised) {
      const std::uint64_t first = begin / kLine;
      const std::uint64_t last = end / kLine;
      for (std::uint64_t line = first + worker; line < last; line += workers * kUnroll) {
        SgdOperands<T, V, kLine> o[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const std::uint64_t at = line + u * workers;
          if (at >= last) continue;
          // A peer stored most of the output during this kernel: bypass L1.
          *reinterpret_cast<uint4*>(&o[u].gradient) =
              __ldcg(reinterpret_cast<const uint4*>(gradients) + at);
          load_sgd_state(o[u], weights, master, velocity, at);
        }
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const std::uint64_t at = line + u * workers;
          if (at < last) store_sgd_step(o[u], weights, master, velocity, at, step);
        }
      }
      scalar_begin = last * kLine > begin ? last * kLine : begin;
    }
    for (std::uint64_t i = scalar_begin + worker; i < end; i += workers) {
      sgd_step_one(weights, __ldcg(gradients + i), master, velocity, i, step);
    }
  }
};

template <typename T, typename V>
void launch_typed(const RingRankArgs& ring, const SgdTarget& target, cudaStream_t stream) {
  using Epilogue = SgdEpilogue<T, V>;
  constexpr std::uintptr_t kLineBytes = 16;
  const bool vectorised =
      ring.aligned && aligned_to(target.weights, kLineBytes) &&
      aligned_to(target.velocity, sizeof(Pack<V, Epilogue::kLine>)) &&
      (target.master == nullptr || aligned_to(target.master, sizeof(Pack<float, Epilogue::kLine>)));
  const Epilogue epilogue{static_cast<T*>(target.weights), target.master,
                          static_cast<V*>(target.velocity), target.step, vectorised};
  ring_push_kernel<T, SumOp, Epilogue>
      <<<2 * ring.geometry.parts, kRingThreads, 0, stream>>>(ring, epilogue);
}

}  // namespace

void launch_ring_all_reduce_sgd(const RingRankArgs& ring, const SgdTarget& target,
                                cudaStream_t stream) {
  if (ring.protocol != RingProtocol::push) {
    throw std::invalid_argument("ring all-reduce with SGD: needs the push protocol");
  }
  if (ring.reduction != Reduction::sum && ring.reduction != Reduction::avg) {
    throw std::invalid_argument("ring all-reduce with SGD: the reduction must be sum or avg");
  }
  if (ring.type != target.type) {
    throw std::invalid_argument("ring all-reduce with SGD: gradients and weights differ in type");
  }
  with_sgd_types(target, "ring all-reduce with SGD", [&](auto weight, auto momentum) {
    using T = decltype(weight);
    check_ring_launch(ring, 16 / static_cast<int>(sizeof(T)));
    launch_typed<T, decltype(momentum)>(ring, target, stream);
  });
}

}  // namespace collbench::kernels::training
