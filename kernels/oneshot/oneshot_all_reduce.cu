// The one-shot all-reduce's entry point: checks the arguments and picks the low-latency kernel
// (oneshot_ll.cu) or the staged one (oneshot_staged.cu).
#include <stdexcept>
#include <string>

#include "oneshot/oneshot_all_reduce.hpp"

namespace collbench::kernels {

void launch_oneshot_all_reduce(const OneshotRankArgs& args, cudaStream_t stream) {
  if (args.nranks < 2 || args.nranks > kOneshotMaxRanks || args.rank < 0 ||
      args.rank >= args.nranks) {
    throw std::invalid_argument("oneshot all-reduce: rank " + std::to_string(args.rank) + " of " +
                                std::to_string(args.nranks) + " (2 to " +
                                std::to_string(kOneshotMaxRanks) + " ranks supported)");
  }
  if (args.count == 0) return;
  if (args.low_latency) {
    detail::launch_oneshot_low_latency(args, stream);
  } else {
    detail::launch_oneshot_staged(args, stream);
  }
}

}  // namespace collbench::kernels
