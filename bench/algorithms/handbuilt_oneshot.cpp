// "oneshot": the one-kernel all-reduce for small messages (kernels/oneshot/) as an all_reduce
// implementation: flags and the low-latency inbox allocated once, the staged kernel's scratch
// grown as cases need, buffers registered per case.
#include "algorithms/handbuilt_oneshot.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "algorithms/handbuilt_peer_group.hpp"
#include "algorithms/handbuilt_peer_kernel.hpp"
#include "core/errors.hpp"
#include "oneshot/oneshot_all_reduce.hpp"

namespace collbench {
namespace {

// Above this, every rank reading every input costs more than the ring's 2(n-1)/n per rank.
constexpr std::size_t kOneshotMaxBytes = 32u << 20;

std::size_t round_up(std::size_t value, std::size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

class OneshotAlgorithm final
    : public PeerKernelAlgorithm<kernels::OneshotRankArgs, kernels::launch_oneshot_all_reduce> {
 public:
  OneshotAlgorithm(const std::vector<RankContext>& ranks, const OneshotTuning& tuning)
      : PeerKernelAlgorithm(ranks, tuning.peer, tuning.launch),
        programmatic_(tuning.programmatic) {}
  ~OneshotAlgorithm() override { peers_.request_abort(); }  // see RingAlgorithm

  std::string_view name() const override { return "oneshot"; }
  std::string unsupported_reason(const CaseShape& shape) const override {
    if (std::string why = peers_.unsupported_reason(shape); !why.empty()) return why;
    const std::size_t bytes = shape.counts.param * size_of(shape.type);
    if (bytes > kOneshotMaxBytes) {
      return fmt::format("oneshot is for small messages: {} B is above its {} B limit (use ring)",
                         bytes, kOneshotMaxBytes);
    }
    return {};
  }

 protected:
  void prepare_arguments(const std::vector<RankContext>& ranks,
                         const std::vector<RankBuffers>& buffers, const CaseShape& shape) override {
    if (std::string why = unsupported_reason(shape); !why.empty()) {
      throw UsageError("oneshot: " + why);
    }
    // Also orders this case after the last: a block's portion and parity differ between cases.
    peers_.synchronize(ranks);
    peers_.ready_flags(signals_, sizeof(kernels::OneshotSignals));
    const std::size_t bytes = shape.counts.param * size_of(shape.type);
    const bool low_latency = bytes <= kernels::kOneshotLowLatencyMaxBytes;
    if (low_latency) {
      if (inbox_.empty()) {
        inbox_ = peers_.allocate_zeroed(kernels::kOneshotInboxBytes);
      } else {
        // Words left by another case's geometry could carry a launch count this case expects.
        zero_buffers(inbox_);
      }
    } else if (const std::size_t half_bytes = round_up(bytes, 256);
               half_bytes > scratch_half_bytes_) {
      // Two halves, each a whole number of 256-byte blocks so both start aligned.
      scratch_.clear();  // free first: the GPUs may not hold old and new together
      scratch_ = peers_.allocate_zeroed(2 * half_bytes);
      scratch_half_bytes_ = half_bytes;
    }

    std::vector<void*> scratch, inbox, signals, sends, recvs;
    for (std::size_t local = 0; local < ranks.size(); ++local) {
      const int index = peers_.local_index(ranks[local].rank);
      scratch.push_back(scratch_.empty() ? nullptr : scratch_[index].get());
      inbox.push_back(inbox_.empty() ? nullptr : inbox_[index].get());
      signals.push_back(signals_[index].get());
      sends.push_back(const_cast<void*>(buffers[local].send));
      recvs.push_back(buffers[local].recv);
    }
    const auto tables = peers_.exchange(ranks, {scratch, inbox, signals}, shape.nranks);
    const PeerGroup::PeerTable& scratch_table = tables[0];
    const PeerGroup::PeerTable& inbox_table = tables[1];
    const PeerGroup::PeerTable& signal_table = tables[2];
    const bool aligned = all_aligned({sends, recvs});

    args_.assign(peers_.size(), {});
    for (std::size_t local = 0; local < ranks.size(); ++local) {
      const int rank = ranks[local].rank;
      kernels::OneshotRankArgs& a = args_[peers_.local_index(rank)];
      a.send = buffers[local].send;
      a.recv = buffers[local].recv;
      for (int r = 0; r < shape.nranks; ++r) {
        a.signals[r] = static_cast<kernels::OneshotSignals*>(signal_table[local][r]);
        a.scratch[r] = scratch_table[local][r];
        a.inbox[r] = inbox_table[local][r];
      }
      a.scratch_half_bytes = scratch_half_bytes_;
      a.count = shape.counts.param;
      a.abort = peers_.abort_for(rank);
      a.rank = rank;
      a.nranks = shape.nranks;
      a.type = element_type_of(shape.type);
      a.reduction = reduction_of(shape.op);
      a.aligned = aligned;
      a.low_latency = low_latency;
      a.programmatic = launches_directly(shape);
    }
  }

  // A programmatic launch must be a kernel launch on the caller's stream, not a graph's.
  bool launches_directly(const CaseShape& shape) const override {
    return oneshot_is_programmatic(programmatic_, shape.nranks,
                                   shape.counts.param * size_of(shape.type));
  }

 private:
  ProgrammaticLaunch programmatic_;
  std::vector<DeviceBuffer> signals_;  // kernels::OneshotSignals per local rank
  std::vector<DeviceBuffer> scratch_;  // staged kernel: two halves per local rank
  std::size_t scratch_half_bytes_ = 0;
  std::vector<DeviceBuffer>
      inbox_;  // low-latency kernel: kernels::kOneshotInboxBytes per local rank
};

}  // namespace

bool oneshot_is_programmatic(ProgrammaticLaunch mode, int nranks, std::size_t bytes) {
  if (mode != ProgrammaticLaunch::by_size) return mode == ProgrammaticLaunch::on;
  return static_cast<std::size_t>(std::max(nranks - 1, 0)) * bytes >=
         kOneshotProgrammaticMinPeerBytes;
}

std::unique_ptr<HandbuiltAlgorithm> make_oneshot(const std::vector<RankContext>& ranks,
                                                 const OneshotTuning& tuning) {
  tuning.validate();
  return std::make_unique<OneshotAlgorithm>(ranks, tuning);
}

const TuningSettings<OneshotTuning>& oneshot_settings() {
  static const TuningSettings<OneshotTuning> settings = {
      {choice_setting("oneshot_pdl", {"auto", "on", "off"}, "auto",
                      "programmatic dependent launch when launched normally: auto (from 96 KiB "
                      "sent to peers), on or off; always inside a CUDA graph"),
       [](OneshotTuning& tuning, const SettingValues& values) {
         const std::string& mode = values.text("oneshot_pdl");
         tuning.programmatic = mode == "on"    ? ProgrammaticLaunch::on
                               : mode == "off" ? ProgrammaticLaunch::off
                                               : ProgrammaticLaunch::by_size;
       }},
      peer_launch_setting<OneshotTuning>(),
      peer_timeout_setting<OneshotTuning>()};
  return settings;
}

const HandbuiltDescriptor& oneshot_descriptor() {
  static const HandbuiltDescriptor descriptor{
      "oneshot",
      "small messages: every rank reads every rank's input and reduces it in rank order",
      "kernels/oneshot/",
      "oneshot",
      specs_of(oneshot_settings()),
      {},
      maker_of(oneshot_settings(), make_oneshot)};
  return descriptor;
}

}  // namespace collbench
