// What the peer-to-peer hand-built algorithms (ring, oneshot) share: their PeerGroup, one kernel
// argument block per local rank (filled by the derived prepare()), the launch loop, and the hooks
// that close peer mappings, stop waiting kernels and report a kernel that gave up.
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <vector>

#include "cuda_resources.hpp"
#include "errors.hpp"
#include "handbuilt_algorithms.hpp"
#include "handbuilt_peer_group.hpp"

namespace collbench {

// `kLaunchKernel` enqueues one rank's kernel for its prepared arguments.
template <typename RankArgs, void (*kLaunchKernel)(const RankArgs&, cudaStream_t)>
class PeerKernelAlgorithm : public HandbuiltAlgorithm {
 public:
  PeerKernelAlgorithm(const std::vector<RankContext>& ranks, double peer_timeout_s)
      : peers_(ranks, peer_timeout_s) {}

  void launch(const std::vector<RankContext>& ranks, const std::vector<RankBuffers>& buffers,
              const CaseShape& shape, int aggregate) override {
    if (shape.counts.param == 0) return;  // every rank agrees: nothing to exchange
    for (int repeat = 0; repeat < aggregate; ++repeat) {
      // Rank-minor order: every rank's kernel of one repeat is queued before the next repeat's.
      for (std::size_t local = 0; local < ranks.size(); ++local) {
        const RankContext& rank = ranks[local];
        const RankArgs& a = args_.at(peers_.local_index(rank.rank));
        if (a.send != buffers[local].send || a.recv != buffers[local].recv) {
          throw std::logic_error(fmt::format(
              "{}: rank {} launched with buffers other than prepare()'s", name(), rank.rank));
        }
        ScopedDevice on(rank.device, rank.rank);
        kLaunchKernel(a, rank.stream);
        CB_CHECK_LAUNCH();
      }
    }
  }

  void release() override { peers_.release(); }
  void request_abort() noexcept override { peers_.request_abort(); }
  void check_health() const override { peers_.check_health(name()); }

 protected:
  // A base member: destroyed after every buffer of the derived algorithm, whose destructor must
  // call peers_.request_abort() first so that a kernel still waiting on a peer lets them be freed.
  PeerGroup peers_;
  std::vector<RankArgs> args_;  // per local rank (PeerGroup::local_index), for the prepared case
};

}  // namespace collbench
