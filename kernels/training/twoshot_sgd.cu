// The two-shot kernel with an SGD gather: the owner of a chunk reduces each piece, updates its
// momentum (and master weights) there, and stores the new model weights into every rank's copy,
// so the last bucket's update costs each rank 1/n of the bucket, inside the all-reduce.
#include <stdexcept>
#include <string>

#include "reduce_dispatch.cuh"
#include "sgd_update.cuh"
#include "twoshot/twoshot_kernel.cuh"
#include "twoshot_sgd.hpp"

namespace collbench::kernels::training {
namespace {

template <typename T>
using Line = collbench::kernels::Pack<T>;  // 16 bytes: what the reduction hands over

// reduce_in_rank_order_into's sink for one piece of the owner's chunk, every pointer at the
// piece's first element: the gradient into the owner's output, the step on the owner's state, the
// new weights into every rank's copy.
template <typename T, typename V, int kRanks>
struct SgdSink {
  static constexpr int kLine = Line<T>::kCount;
  using State = SgdOperands<T, V, kLine>;
  T* gradient;
  T* weights[kRanks];  // rank (owner + k) % kRanks's copy at index k: the owner's own first
  float* master;
  V* velocity;
  SgdStep step;

  __device__ State load(std::uint64_t line) const {
    State o;
    load_sgd_state(o, weights[0], master, velocity, line);
    return o;
  }
  __device__ void store(std::uint64_t line, const Line<T>& result, State& o) const {
    store_pack(reinterpret_cast<Line<T>*>(gradient) + line, result);
#pragma unroll
    for (int e = 0; e < kLine; ++e) o.gradient.v[e] = result.elements[e];
    const Pack<T, kLine> rounded = apply_sgd_step(o, step);
    store_sgd_state(o, master, velocity, line);
#pragma unroll
    for (int k = 0; k < kRanks; ++k) reinterpret_cast<Pack<T, kLine>*>(weights[k])[line] = rounded;
  }
  __device__ void store_one(std::uint64_t i, T result) const {
    gradient[i] = result;
    const T rounded = sgd_step_one(weights[0], result, master, velocity, i, step);
#pragma unroll
    for (int k = 1; k < kRanks; ++k) weights[k][i] = rounded;
  }
};

// Lines of every rank in flight per thread: fewer than the plain gather's, since each line also
// holds its momentum and weights in registers.
template <int kRanks>
constexpr int sgd_gather_unroll() {
  return kRanks <= 2 ? 2 : 1;
}

template <typename T, typename V, int kRanks>
struct TwoshotSgdGather {
  T* weights[kRanks];  // at the bucket's first element, ordered as SgdSink's
  float* master;       // the owner's, or null
  V* velocity;         // the owner's
  SgdStep step;
  bool vectorised;  // the state's pointers are aligned to their packs (the gradients' are checked
                    // by the twoshot arguments' own `aligned`)

  __device__ void operator()(const TwoshotRankArgs& args, const T* const (&sources)[kRanks],
                             const ElementRange& range) const {
    SgdSink<T, V, kRanks> sink{static_cast<T*>(args.recv) + range.begin,
                               {},
                               master ? master + range.begin : nullptr,
                               velocity + range.begin,
                               step};
#pragma unroll
    for (int r = 0; r < kRanks; ++r) sink.weights[r] = weights[r] + range.begin;
    reduce_in_rank_order_into<T, SumOp, kRanks, sgd_gather_unroll<kRanks>()>(
        sink, sources, range.end - range.begin, args.reduction == Reduction::avg ? kRanks : 0,
        args.aligned && vectorised, threadIdx.x, blockDim.x);
  }
};

template <typename T, typename V, int kRanks>
void launch_typed(const TwoshotRankArgs& twoshot, const TwoshotSgdTarget& target,
                  cudaStream_t stream) {
  constexpr int kLine = Line<T>::kCount;
  TwoshotSgdGather<T, V, kRanks> gather{
      {}, target.own.master, static_cast<V*>(target.own.velocity), target.own.step, true};
  for (int k = 0; k < kRanks; ++k) {
    void* copy = target.weights[(twoshot.rank + k) % kRanks];
    gather.weights[k] = static_cast<T*>(copy);
    gather.vectorised = gather.vectorised && aligned_to(copy, sizeof(Line<T>));
  }
  gather.vectorised =
      gather.vectorised && aligned_to(target.own.velocity, sizeof(Pack<V, kLine>)) &&
      (target.own.master == nullptr || aligned_to(target.own.master, sizeof(Pack<float, kLine>)));
  twoshot_kernel<T, SumOp, kRanks>
      <<<twoshot.geometry.parts, kTwoshotThreads, 0, stream>>>(twoshot, gather);
}

}  // namespace

void launch_twoshot_all_reduce_sgd(const TwoshotRankArgs& twoshot, const TwoshotSgdTarget& target,
                                   cudaStream_t stream) {
  const char* kernel = "twoshot all-reduce with SGD";
  if (twoshot.reduction != Reduction::sum && twoshot.reduction != Reduction::avg) {
    throw std::invalid_argument(std::string(kernel) + ": the reduction must be sum or avg");
  }
  if (twoshot.type != target.own.type) {
    throw std::invalid_argument(std::string(kernel) + ": gradients and weights differ in type");
  }
  const int nranks = twoshot.geometry.nranks;
  for (int r = 0; r < nranks && r < kMaxPeerRanks; ++r) {
    if (target.weights[r] == nullptr) {
      throw std::invalid_argument(std::string(kernel) + ": rank " + std::to_string(r) +
                                  "'s weights are missing");
    }
  }
  if (twoshot.rank >= 0 && twoshot.rank < nranks && twoshot.rank < kMaxPeerRanks &&
      target.weights[twoshot.rank] != target.own.weights) {
    throw std::invalid_argument(std::string(kernel) +
                                ": the weights table's own entry is not the target's weights");
  }
  with_sgd_types(target.own, kernel, [&](auto weight, auto momentum) {
    using T = decltype(weight);
    check_twoshot_launch(twoshot, Line<T>::kCount);
    with_rank_count(nranks, [&](auto ranks) {
      launch_typed<T, decltype(momentum), decltype(ranks)::value>(twoshot, target, stream);
    });
  });
}

}  // namespace collbench::kernels::training
