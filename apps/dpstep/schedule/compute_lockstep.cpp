// Each rank's block of counts, and where every rank writes in every other's.
#include "schedule/compute_lockstep.hpp"

#include <fmt/format.h>

#include <cstdint>

#include "core/errors.hpp"
#include "schedule/gradient_sync.hpp"

namespace collbench::dp {

ComputeLockstep::ComputeLockstep(const std::vector<RankContext>& ranks, int nranks,
                                 double timeout_s)
    : peers_(ranks, timeout_s) {
  if (nranks > kernels::kMaxPeerRanks) {
    throw UnsupportedConfig(
        fmt::format("--lockstep: at most {} ranks, not {}", kernels::kMaxPeerRanks, nranks));
  }
  if (!peers_.peer_access_problem().empty())
    throw UnsupportedConfig("--lockstep: " + peers_.peer_access_problem());
  const std::size_t bytes = sizeof(std::uint32_t) * (1 + static_cast<std::size_t>(nranks));
  counts_ = peers_.allocate_zeroed(bytes);
  std::vector<void*> own;
  for (const RankContext& rank : ranks)
    own.push_back(counts_[static_cast<std::size_t>(peers_.local_index(rank.rank))].get());
  const PeerGroup::PeerTable table = peers_.exchange(ranks, {own}, nranks).front();
  for (std::size_t local = 0; local < ranks.size(); ++local) {
    kernels::training::LockstepBarrier barrier{};
    barrier.own = static_cast<std::uint32_t*>(own[local]);
    barrier.nranks = nranks;
    barrier.rank = ranks[local].rank;
    barrier.abort = peers_.abort_for(ranks[local].rank);
    for (int peer = 0; peer < nranks; ++peer) {
      // Slot 1 + rank of each peer's block is this rank's.
      barrier.peer_slot[peer] = static_cast<std::uint32_t*>(table[local][peer]) + 1 + barrier.rank;
    }
    barriers_.push_back(barrier);
  }
}

void ComputeLockstep::enqueue(int local, cudaStream_t stream) const {
  kernels::training::launch_lockstep_barrier(barriers_.at(static_cast<std::size_t>(local)), stream);
  CB_CHECK_LAUNCH();
}

}  // namespace collbench::dp
