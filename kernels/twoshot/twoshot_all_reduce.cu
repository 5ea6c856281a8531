// The two-shot all-reduce: one kernel per rank, CTA p of every rank moving piece p of every chunk
// slice by slice, with per-CTA flags between ranks and no host round trip (twoshot_kernel.cuh).
#include <stdexcept>
#include <string>

#include "reduce_dispatch.cuh"
#include "twoshot/twoshot_kernel.cuh"

namespace collbench::kernels {
namespace {

template <typename Pointer>
bool any_missing(Pointer const (&pointers)[kMaxPeerRanks], int nranks) {
  for (int r = 0; r < nranks; ++r) {
    if (pointers[r] == nullptr) return true;
  }
  return false;
}

}  // namespace

void check_twoshot_launch(const TwoshotRankArgs& args, int line_elements) {
  const RingGeometry& g = args.geometry;
  if (g.parts < 1 || g.parts > kTwoshotMaxParts || g.slices < 1 || g.nranks < 2 ||
      g.nranks > kMaxPeerRanks) {
    throw std::invalid_argument("twoshot all-reduce: bad geometry (parts " +
                                std::to_string(g.parts) + ", slices " + std::to_string(g.slices) +
                                ", ranks " + std::to_string(g.nranks) + ")");
  }
  if (g.line_elements != line_elements) {
    throw std::invalid_argument("twoshot all-reduce: line_elements " +
                                std::to_string(g.line_elements) +
                                " does not match the element type");
  }
  if (any_missing(args.outputs, g.nranks) || any_missing(args.staging, g.nranks) ||
      any_missing(args.signals, g.nranks)) {
    throw std::invalid_argument("twoshot all-reduce: a rank's output, staging or flags is missing");
  }
}

void launch_twoshot_all_reduce(const TwoshotRankArgs& args, cudaStream_t stream) {
  const RingGeometry& g = args.geometry;
  with_reduction(args.type, args.reduction, [&](auto element, auto op) {
    using T = decltype(element);
    check_twoshot_launch(args, Pack<T>::kCount);
    with_rank_count(g.nranks, [&](auto ranks) {
      constexpr int kRanks = decltype(ranks)::value;
      using Op = decltype(op);
      twoshot_kernel<T, Op, kRanks>
          <<<g.parts, kTwoshotThreads, 0, stream>>>(args, TwoshotAllGather<T, Op, kRanks>{});
    });
  });
}

}  // namespace collbench::kernels
