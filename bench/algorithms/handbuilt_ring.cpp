// "ring": the hand-built NVLink ring all-reduce (kernels/ring/ring_all_reduce.cu) as an all_reduce
// implementation: flags allocated once, staging slots (push) sized to the largest case so far,
// buffers registered per case, one kernel per rank.
#include "algorithms/handbuilt_ring.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "algorithms/handbuilt_peer_group.hpp"
#include "algorithms/handbuilt_peer_kernel.hpp"
#include "core/errors.hpp"
#include "ring/ring_all_reduce.hpp"

namespace collbench {
namespace {

// pull: a slice costs a flag round trip between neighbours, and 64 of them already absorb the
// skew. push: a slice's piece is a staging slot, so the slice count instead keeps the slots near
// ring_slice_bytes however large the buffer (the bound only keeps task counts small).
constexpr int kMaxPullSlices = 64;
constexpr int kMaxPushSlices = 1 << 16;

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
  return (a + b - 1) / b;
}

class RingAlgorithm final
    : public PeerKernelAlgorithm<kernels::RingRankArgs, kernels::launch_ring_all_reduce> {
 public:
  RingAlgorithm(const std::vector<RankContext>& ranks, const RingTuning& tuning)
      : PeerKernelAlgorithm(ranks, tuning.peer, tuning.launch), tuning_(tuning) {}
  ~RingAlgorithm() override {
    // A kernel still waiting on a peer (a failed case) returns now, so freeing its memory below
    // does not wait forever.
    peers_.request_abort();
  }

  std::string_view name() const override { return "ring"; }
  std::string unsupported_reason(const CaseShape& shape) const override {
    return peers_.unsupported_reason(shape);
  }

 protected:
  void prepare_arguments(const std::vector<RankContext>& ranks,
                         const std::vector<RankBuffers>& buffers, const CaseShape& shape) override {
    if (std::string why = unsupported_reason(shape); !why.empty()) throw UsageError("ring: " + why);
    peers_.synchronize(ranks);
    peers_.ready_flags(signals_, sizeof(kernels::RingSignals));
    const kernels::RingGeometry geometry = ring_geometry(shape, tuning_, peers_.min_sm_count());
    const bool push = tuning_.protocol == kernels::RingProtocol::push;
    if (push) peers_.grow(staging_, kernels::ring_push_staging_bytes(geometry, tuning_.slots));

    const LocalPointers mine = local_pointers(ranks, buffers, signals_, push ? &staging_ : nullptr);
    // Every process exchanges the same sets in the same order (exchange is collective).
    const auto tables =
        peers_.exchange(ranks, {mine.sends, mine.recvs, mine.signals, mine.staging}, shape.nranks);
    const PeerGroup::PeerTable& send_table = tables[0];
    const PeerGroup::PeerTable& recv_table = tables[1];
    const PeerGroup::PeerTable& signal_table = tables[2];
    const PeerGroup::PeerTable& staging_table = tables[3];
    const bool aligned = all_aligned(send_table) && all_aligned(recv_table);

    args_.assign(peers_.size(), {});
    for (std::size_t local = 0; local < ranks.size(); ++local) {
      const int rank = ranks[local].rank;
      const int previous = (rank - 1 + shape.nranks) % shape.nranks;
      const int next = (rank + 1) % shape.nranks;
      kernels::RingRankArgs& a = args_[peers_.local_index(rank)];
      a.protocol = tuning_.protocol;
      a.send = buffers[local].send;
      a.recv = buffers[local].recv;
      a.previous_send = send_table[local][previous];
      a.previous_recv = recv_table[local][previous];
      a.next_recv = recv_table[local][next];
      a.staging = mine.staging[local];
      a.next_staging = staging_table[local][next];
      a.slots = tuning_.slots;
      a.signals = static_cast<kernels::RingSignals*>(mine.signals[local]);
      a.next_signals = static_cast<kernels::RingSignals*>(signal_table[local][next]);
      a.previous_signals = static_cast<kernels::RingSignals*>(signal_table[local][previous]);
      fill_case_fields(a, rank, geometry, shape, aligned);
    }
  }

 private:
  const RingTuning tuning_;
  std::vector<DeviceBuffer> signals_;  // kernels::RingSignals per local rank
  std::vector<DeviceBuffer> staging_;  // push: per local rank, written by its rank - 1
};

}  // namespace

kernels::RingGeometry split_into_pieces(const CaseShape& shape, int max_ctas,
                                        std::size_t min_part_bytes, std::size_t slice_bytes,
                                        int max_slices, int sm_count) {
  const std::uint64_t element_bytes = size_of(shape.type);
  const std::uint64_t chunk_bytes = shape.counts.param * element_bytes / shape.nranks;
  const int max_parts = std::max(1, std::min(max_ctas, sm_count));
  const std::uint64_t wanted_parts =
      ceil_div(chunk_bytes, std::max<std::size_t>(min_part_bytes, 1));
  const int parts = static_cast<int>(std::clamp<std::uint64_t>(wanted_parts, 1, max_parts));
  const std::uint64_t wanted_slices =
      ceil_div(chunk_bytes, parts * std::max<std::size_t>(slice_bytes, 1));
  const int slices = static_cast<int>(std::clamp<std::uint64_t>(wanted_slices, 1, max_slices));
  return {shape.counts.param, shape.nranks, slices, parts, static_cast<int>(16 / element_bytes)};
}

kernels::RingGeometry ring_geometry(const CaseShape& shape, const RingTuning& tuning,
                                    int sm_count) {
  const std::uint64_t buffer_bytes = shape.counts.param * size_of(shape.type);
  const int ctas = buffer_bytes >= tuning.large_bytes ? tuning.large_ctas : tuning.max_ctas;
  const int max_slices =
      tuning.protocol == kernels::RingProtocol::push ? kMaxPushSlices : kMaxPullSlices;
  return split_into_pieces(shape, std::min(ctas, kernels::kRingMaxParts), tuning.min_part_bytes,
                           tuning.slice_bytes, max_slices, sm_count);
}

void RingTuning::validate() const {
  if (!kernels::ring_push_slots_valid(slots)) {
    throw UsageError(
        fmt::format("ring_slots={} is not a power of two from 2 to {} (staging slots per CTA)",
                    slots, kernels::kRingMaxSlots));
  }
  for (const auto& [name, value] :
       {std::pair{"ring_ctas", max_ctas}, std::pair{"ring_large_ctas", large_ctas}}) {
    if (value < 1) throw UsageError(fmt::format("{}={} is not positive", name, value));
  }
}

std::unique_ptr<HandbuiltAlgorithm> make_ring(const std::vector<RankContext>& ranks,
                                              const RingTuning& tuning) {
  tuning.validate();
  return std::make_unique<RingAlgorithm>(ranks, tuning);
}

const TuningSettings<RingTuning>& ring_settings() {
  constexpr std::size_t kGiB = std::size_t{1} << 30;
  static const TuningSettings<RingTuning> settings = {
      {choice_setting("ring_protocol", {"push", "pull"}, "push",
                      "push: stores into the next rank's staging and output; pull: loads from the "
                      "previous rank"),
       [](RingTuning& tuning, const SettingValues& values) {
         tuning.protocol = values.text("ring_protocol") == "push" ? kernels::RingProtocol::push
                                                                  : kernels::RingProtocol::pull;
       }},
      integer_setting("ring_ctas", &RingTuning::max_ctas, 1, kernels::kRingMaxParts,
                      "CTAs per launch at most (below large_bytes)"),
      integer_setting("ring_large_ctas", &RingTuning::large_ctas, 1, kernels::kRingMaxParts,
                      "CTAs per launch at most from large_bytes up"),
      bytes_setting("ring_large_bytes", &RingTuning::large_bytes, 1, 64 * kGiB,
                    "buffer size from which large_ctas applies"),
      bytes_setting("ring_min_part_bytes", &RingTuning::min_part_bytes, 16, kGiB,
                    "fewer CTAs below this much of a chunk per CTA"),
      bytes_setting("ring_slice_bytes", &RingTuning::slice_bytes, 16, kGiB,
                    "a CTA's piece per slice (the pipelining unit), aimed at"),
      integer_setting("ring_slots", &RingTuning::slots, 2, kernels::kRingMaxSlots,
                      "push: staging slots per CTA (a power of two)"),
      peer_launch_setting<RingTuning>(),
      peer_timeout_setting<RingTuning>()};
  return settings;
}

const HandbuiltDescriptor& ring_descriptor() {
  static const HandbuiltDescriptor descriptor{
      "ring",
      "ring over NVLink peer stores (push) or loads (pull), device flags, pipelined in slices",
      "kernels/ring/",
      "ring",
      specs_of(ring_settings()),
      {},
      maker_of(ring_settings(), make_ring)};
  return descriptor;
}

}  // namespace collbench
