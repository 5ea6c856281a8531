// "twoshot": the hand-built two-shot all-reduce (kernels/twoshot/twoshot_all_reduce.cu) as an
// all_reduce implementation: flags allocated once, staging sized to the largest case so far,
// buffers registered per case, one kernel per rank.
#include "algorithms/handbuilt_twoshot.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "algorithms/handbuilt_peer_group.hpp"
#include "algorithms/handbuilt_peer_kernel.hpp"
#include "algorithms/handbuilt_ring.hpp"
#include "core/errors.hpp"
#include "core/fused_update.hpp"
#include "twoshot/twoshot_all_reduce.hpp"

namespace collbench {
namespace {

// A slice's pieces are the staging slots, so the slice count keeps them near twoshot_slice_bytes
// however large the buffer (the bound only keeps counts far from wrapping within a launch).
constexpr int kTwoshotMaxSlices = 1 << 16;

// Its prepared kernel is what the training step's fused update launches (FusedUpdate).
class TwoshotAlgorithm final
    : public PeerKernelAlgorithm<kernels::TwoshotRankArgs, kernels::launch_twoshot_all_reduce>,
      public FusedUpdate {
 public:
  TwoshotAlgorithm(const std::vector<RankContext>& ranks, const TwoshotTuning& tuning)
      : PeerKernelAlgorithm(ranks, tuning.peer, tuning.launch), tuning_(tuning) {}
  ~TwoshotAlgorithm() override { peers_.request_abort(); }  // see RingAlgorithm

  std::string_view name() const override { return "twoshot"; }
  FusedUpdate* fused_update() override { return this; }
  const kernels::TwoshotRankArgs& rank_arguments(int rank) const override {
    return args_.at(peers_.local_index(rank));
  }
  std::vector<std::vector<void*>> peer_table(const std::vector<RankContext>& ranks,
                                             const std::vector<void*>& pointers) override {
    if (args_.empty()) throw std::logic_error("twoshot: peer_table() before prepare()");
    return peers_.exchange(ranks, {pointers}, args_.front().geometry.nranks).front();
  }
  std::string unsupported_reason(const CaseShape& shape) const override {
    return peers_.unsupported_reason(shape);
  }

 protected:
  void prepare_arguments(const std::vector<RankContext>& ranks,
                         const std::vector<RankBuffers>& buffers, const CaseShape& shape) override {
    if (std::string why = unsupported_reason(shape); !why.empty()) {
      throw UsageError("twoshot: " + why);
    }
    peers_.synchronize(ranks);
    peers_.ready_flags(signals_, sizeof(kernels::TwoshotSignals));
    const kernels::RingGeometry geometry = twoshot_geometry(shape, tuning_, peers_.min_sm_count());
    peers_.grow(staging_, kernels::twoshot_staging_bytes(geometry));

    const LocalPointers mine = local_pointers(ranks, buffers, signals_, &staging_);
    // Every process exchanges the same sets in the same order (exchange is collective).
    const auto tables =
        peers_.exchange(ranks, {mine.recvs, mine.signals, mine.staging}, shape.nranks);
    const PeerGroup::PeerTable& recv_table = tables[0];
    const PeerGroup::PeerTable& signal_table = tables[1];
    const PeerGroup::PeerTable& staging_table = tables[2];
    // Packs are stored into every rank's output; the inputs are only read locally.
    const bool aligned = all_aligned(recv_table) && all_aligned({mine.sends});

    args_.assign(peers_.size(), {});
    for (std::size_t local = 0; local < ranks.size(); ++local) {
      const int rank = ranks[local].rank;
      kernels::TwoshotRankArgs& a = args_[peers_.local_index(rank)];
      a.send = buffers[local].send;
      a.recv = buffers[local].recv;
      for (int r = 0; r < shape.nranks; ++r) {
        a.outputs[r] = recv_table[local][r];
        a.staging[r] = staging_table[local][r];
        a.signals[r] = static_cast<kernels::TwoshotSignals*>(signal_table[local][r]);
      }
      fill_case_fields(a, rank, geometry, shape, aligned);
    }
  }

 private:
  const TwoshotTuning tuning_;
  std::vector<DeviceBuffer> signals_;  // kernels::TwoshotSignals per local rank
  std::vector<DeviceBuffer> staging_;  // per local rank, written by every other rank
};

}  // namespace

kernels::RingGeometry twoshot_geometry(const CaseShape& shape, const TwoshotTuning& tuning,
                                       int sm_count) {
  return split_into_pieces(shape, std::min(tuning.ctas, kernels::kTwoshotMaxParts),
                           tuning.min_part_bytes, tuning.slice_bytes, kTwoshotMaxSlices, sm_count);
}

void TwoshotTuning::validate() const {
  if (ctas < 1) throw UsageError(fmt::format("twoshot_ctas={} is not positive", ctas));
}

std::unique_ptr<HandbuiltAlgorithm> make_twoshot(const std::vector<RankContext>& ranks,
                                                 const TwoshotTuning& tuning) {
  tuning.validate();
  return std::make_unique<TwoshotAlgorithm>(ranks, tuning);
}

const TuningSettings<TwoshotTuning>& twoshot_settings() {
  constexpr std::size_t kGiB = std::size_t{1} << 30;
  static const TuningSettings<TwoshotTuning> settings = {
      integer_setting("twoshot_ctas", &TwoshotTuning::ctas, 1, kernels::kTwoshotMaxParts,
                      "CTAs per launch at most"),
      bytes_setting("twoshot_slice_bytes", &TwoshotTuning::slice_bytes, 16, kGiB,
                    "a CTA's piece of each chunk per slice, aimed at"),
      bytes_setting("twoshot_min_part_bytes", &TwoshotTuning::min_part_bytes, 16, kGiB,
                    "fewer CTAs below this much of a chunk per CTA"),
      peer_launch_setting<TwoshotTuning>(), peer_timeout_setting<TwoshotTuning>()};
  return settings;
}

const HandbuiltDescriptor& twoshot_descriptor() {
  static const HandbuiltDescriptor descriptor{
      "twoshot",
      "each rank reduces its chunk of every rank's input and stores it into every rank's output",
      "kernels/twoshot/",
      "twoshot",
      specs_of(twoshot_settings()),
      {/*concurrent_instances=*/false, /*launch_in_parts=*/false, /*fused_update=*/true},
      maker_of(twoshot_settings(), make_twoshot)};
  return descriptor;
}

}  // namespace collbench
