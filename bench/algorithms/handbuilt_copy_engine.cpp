// "copy_engine": an all-reduce whose NVLink traffic is carried by the GPUs' copy engines, not by
// SM loads and stores, so it leaves the SMs to whatever runs beside it (the training step's
// backward GEMMs). Per round of the buffer, rank r:
//   1. copies chunk c of its input into rank c's staging slot r, for every other rank c
//      (the reduce-scatter's transfers), then raises arrived[r] in each of them;
//   2. waits until every other rank's piece of chunk r has arrived, and reduces them in one
//      local kernel (reduce_sources.cu) into chunk r of its output;
//   3. copies that reduced chunk into chunk r of every other rank's output (the all-gather), then
//      raises gathered[r] in each of them, and waits for every other rank's.
// Flags are written and awaited by stream memory operations (stream_memops.hpp): no SM spins,
// and the whole exchange is stream-ordered and capturable. Each flag goes back to zero right
// after its wait (copied from a zeroed reset word, so nothing depends on a host-side count and
// graph replays find the flags as the first launch did). Large buffers run as rounds, one after
// another on the caller's stream, so the staging stays one round's size. A one-round case can also
// be launched as its four steps (send, reduce, gather, finish: LaunchPart) on streams the caller
// orders, which the training step's pipelined schedule does.
//
// "copy_engine_ring" moves the same bytes round a ring instead: rank r copies only ever into rank
// r + 1, so no GPU ever receives from two GPUs at once (with every rank copying to every peer,
// about half of 4xH200's copies shared their target and ran at two thirds of the speed). The
// price is n - 1 reductions per round, each of one incoming partial and one local chunk, between
// the copies: the reduce-scatter passes each chunk's partial sum on, and the all-gather forwards
// each reduced chunk, r to r + 1, until every rank has it. Protocol and ordering:
// kernels/README.md, "copy_engine".
#include "algorithms/handbuilt_copy_engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <stdexcept>

#include "algorithms/handbuilt_peer_group.hpp"
#include "copy_engine/reduce_sources.hpp"
#include "core/errors.hpp"
#include "ring/ring_schedule.hpp"
#include "runtime/cuda_resources.hpp"
#include "runtime/stream_memops.hpp"

namespace collbench {
namespace {

// One rank's flags, each raised (to 1) by the rank it is indexed by.
// The ring indexes both by step instead: raised by rank r - 1 when step s's partial (arrived) or
// step s's reduced chunk (gathered) is here.
struct RoundFlags {
  std::uint32_t arrived[kernels::kMaxPeerRanks];   // its piece of our chunk is in our staging
  std::uint32_t gathered[kernels::kMaxPeerRanks];  // its reduced chunk is in our output
};

// Every flag of one rank, in its own memory. `reset` holds what a flag goes back to after its
// wait: zeros, or, once an abort was requested, ones, so that every wait still queued passes.
struct CopyEngineFlags {
  RoundFlags raised;
  RoundFlags reset;
};

class CopyEngineAlgorithm final : public HandbuiltAlgorithm {
 public:
  CopyEngineAlgorithm(const std::vector<RankContext>& ranks, const CopyEngineTuning& tuning,
                      CopyEngineExchange exchange)
      : peers_(ranks, tuning.peer.timeout_s, tuning.peer.allow_shared_gpus),
        round_bytes_(tuning.round_bytes),
        reduce_blocks_(tuning.reduce_blocks),
        exchange_(exchange) {}
  // Queued waits must pass before the buffers they guard are freed.
  ~CopyEngineAlgorithm() override { request_abort(); }

  std::string_view name() const override {
    return exchange_ == CopyEngineExchange::ring ? "copy_engine_ring" : "copy_engine";
  }
  // Flags and staging belong to the instance, and its waits are stream memory operations.
  std::string unsupported_reason(const CaseShape& shape) const override {
    return peers_.unsupported_reason(shape);
  }

  void prepare(const std::vector<RankContext>& ranks, const std::vector<RankBuffers>& buffers,
               const CaseShape& shape) override {
    if (std::string why = unsupported_reason(shape); !why.empty()) {
      throw UsageError("copy_engine: " + why);
    }
    peers_.synchronize(ranks);  // nothing of an earlier case still runs
    if (flags_.empty()) {
      flags_ = peers_.allocate_zeroed(sizeof(CopyEngineFlags));
      abort_streams_.resize(peers_.size());
      for (const RankContext& rank : ranks) {
        abort_streams_[peers_.local_index(rank.rank)] = Stream(rank.device);
      }
    } else if (peers_.aborted()) {
      for (const RankContext& rank : ranks) {
        ScopedDevice on(rank.device, rank.rank);
        CB_CUDA_CHECK(cudaDeviceSynchronize());  // the abort's writes and every released wait
      }
      zero_buffers(flags_);
    }
    peers_.clear_abort();

    shape_ = shape;
    const std::uint64_t count = shape.counts.param;
    const int line = static_cast<int>(16 / size_of(shape.type));
    // Whole lines per rank per round, so every round and chunk starts on a 16-byte line.
    const std::uint64_t unit = static_cast<std::uint64_t>(line) * shape.nranks;
    const RoundSplit split = equal_rounds(count, round_bytes_ / size_of(shape.type), unit);
    round_elements_ = split.elements;
    rounds_ = split.rounds;
    const kernels::RingGeometry first{std::min(count, round_elements_), shape.nranks, 1, 1, line};
    std::size_t slot_bytes = 16;
    for (int c = 0; c < shape.nranks; ++c) {
      const kernels::ElementRange chunk = kernels::ring_chunk(first, c);
      slot_bytes = std::max(slot_bytes, chunk_bytes(chunk));
    }
    slot_bytes = (slot_bytes + 255) / 256 * 256;  // every slot starts 256-byte aligned
    if (slot_bytes > slot_bytes_) {
      staging_.clear();  // free first: the GPUs may not hold old and new together
      staging_ = peers_.allocate_zeroed(slot_bytes * shape.nranks);
      slot_bytes_ = slot_bytes;
    }

    std::vector<std::vector<void*>> pointer_sets(3);
    for (std::size_t local = 0; local < ranks.size(); ++local) {
      const int index = peers_.local_index(ranks[local].rank);
      pointer_sets[0].push_back(flags_[index].get());
      pointer_sets[1].push_back(buffers[local].recv);
      pointer_sets[2].push_back(staging_[index].get());
    }
    tables_ = peers_.exchange(ranks, pointer_sets, shape.nranks);
    plans_.assign(peers_.size(), {});
    for (std::size_t local = 0; local < ranks.size(); ++local) {
      RankPlan& plan = plans_[peers_.local_index(ranks[local].rank)];
      plan.local = static_cast<int>(local);
      plan.send = buffers[local].send;
      plan.recv = buffers[local].recv;
    }
    warm_up(ranks);
  }

  void launch(const std::vector<RankContext>& ranks, const std::vector<RankBuffers>& buffers,
              const CaseShape& shape, int aggregate) override {
    if (shape.counts.param == 0) return;
    for (std::size_t local = 0; local < ranks.size(); ++local) {
      const RankPlan& plan = plans_.at(peers_.local_index(ranks[local].rank));
      if (plan.send != buffers[local].send || plan.recv != buffers[local].recv) {
        throw std::logic_error(
            fmt::format("copy_engine: rank {} launched with buffers other than prepare()'s",
                        ranks[local].rank));
      }
    }
    // Round-major: one thread driving several ranks must not fill one rank's queue with rounds
    // that wait for ranks it has not enqueued anything for yet (the enqueue would block forever).
    for (int repeat = 0; repeat < aggregate; ++repeat) {
      for (int round = 0; round < rounds_; ++round) {
        for (const RankContext& rank : ranks) {
          ScopedDevice on(rank.device, rank.rank);
          enqueue_round(rank, plans_.at(peers_.local_index(rank.rank)), round);
        }
      }
    }
  }

  // The ring's copies and reductions alternate, so it has no such parts (its descriptor says so).
  // Per round a copy, a flag copy and a wait per peer, and the reductions: under 4 per peer.
  int stream_operations(const CaseShape& shape, int aggregate) const override {
    return 4 * (shape.nranks + 1) * std::max(rounds_, 1) * aggregate;
  }

  bool has_launch_parts() const { return exchange_ == CopyEngineExchange::direct; }
  // One round only: a later round's send must follow this round's finish on every rank, which
  // parts on separate streams would not keep.
  bool launches_in_parts() const override { return has_launch_parts() && rounds_ <= 1; }
  void launch_part(const std::vector<RankContext>& ranks, LaunchPart part) override {
    if (!has_launch_parts()) return CollectiveAlgorithm::launch_part(ranks, part);  // throws
    if (!launches_in_parts()) {
      throw std::logic_error(
          fmt::format("{}: launched in parts with {} rounds (parts need one round: raise "
                      "COLLBENCH_CE_ROUND_BYTES)",
                      name(), rounds_));
    }
    if (shape_.counts.param == 0) return;
    for (const RankContext& rank : ranks) {
      ScopedDevice on(rank.device, rank.rank);
      const RankPlan& plan = plans_.at(peers_.local_index(rank.rank));
      enqueue_part(plan, view_of(rank, plan, 0), part);
    }
  }

  void release() override { peers_.release(); }

  void request_abort() noexcept override {
    peers_.request_abort();
    // Ones in every flag and reset word: each queued wait passes, and keeps passing.
    for (std::size_t index = 0; index < abort_streams_.size(); ++index) {
      try {
        ScopedDevice on(flags_[index].device());
        auto* flags = flags_[index].as<CopyEngineFlags>();
        // The reset words first (stream order): a wait released by the second memset must not
        // be followed by a reset that still copies a zero.
        CB_CUDA_CHECK(
            cudaMemsetAsync(&flags->reset, 1, sizeof(RoundFlags), abort_streams_[index].get()));
        CB_CUDA_CHECK(
            cudaMemsetAsync(&flags->raised, 1, sizeof(RoundFlags), abort_streams_[index].get()));
      } catch (const std::exception&) {
        // Nothing more to do from here: the caller's timeout reports the hang.
      }
    }
  }
  void check_health() const override { peers_.check_health(name()); }

 private:
  struct RankPlan {
    int local = 0;  // column of tables_ for this rank
    const void* send = nullptr;
    void* recv = nullptr;
  };

  CopyEngineFlags* flags_of(const RankPlan& plan, int rank) const {
    return static_cast<CopyEngineFlags*>(tables_[0][plan.local][rank]);
  }
  void* recv_of(const RankPlan& plan, int rank) const { return tables_[1][plan.local][rank]; }
  char* staging_of(const RankPlan& plan, int rank) const {
    return static_cast<char*>(tables_[2][plan.local][rank]);
  }

  // Runs every kind of operation a round enqueues once, on every rank, and waits for them.
  // With lazy loading, the first launch of a kernel (and possibly the first use of a copy path)
  // waits for the whole device; in launch() that device may already be stuck in a flag wait on
  // a rank that the same host thread has not enqueued yet, which would never end.
  void warm_up(const std::vector<RankContext>& ranks) {
    const int n = shape_.nranks;
    for (const RankContext& rank : ranks) {
      ScopedDevice on(rank.device, rank.rank);
      const RankPlan& plan = plans_.at(peers_.local_index(rank.rank));
      for (const ReductionStep& step : reduction_steps()) {
        CB_CUDA_CHECK(kernels::preload_reduce_sources(element_type_of(shape_.type), step.reduction,
                                                      step.sources));
      }
      CopyEngineFlags* mine = flags_of(plan, rank.rank);
      // Only a slot of `arrived` no peer raises (ours in the direct exchange, the ring's unused
      // last step), and only a staging slot no peer fills: with one process per rank, a peer that
      // has finished its prepare() may already be in its first round, and resetting a flag it
      // raised would leave this rank waiting forever (overwriting its data, reducing garbage).
      const int idle_slot = exchange_ == CopyEngineExchange::ring ? n - 1 : rank.rank;
      std::uint32_t* own_slot = &mine->raised.arrived[idle_slot];
      CB_CUDA_CHECK(cudaMemcpyAsync(own_slot, &mine->reset.arrived[idle_slot], sizeof(*own_slot),
                                    cudaMemcpyDeviceToDevice, rank.stream));
      enqueue_flag_writes(rank.stream, {own_slot}, 0, rank.rank);
      // Staging is scratch: a line of that slot into the same slot at every peer.
      for (int step = 1; step < n; ++step) {
        const int peer = (rank.rank + step) % n;
        CB_CUDA_CHECK(cudaMemcpyAsync(staging_of(plan, peer) + idle_slot * slot_bytes_,
                                      staging_of(plan, rank.rank) + idle_slot * slot_bytes_, 16,
                                      cudaMemcpyDefault, rank.stream));
      }
    }
    peers_.synchronize(ranks);
  }

  // The reductions a round runs (for warm_up): every source at once, or the ring's two at a time
  // (an average sums until its last step).
  struct ReductionStep {
    kernels::Reduction reduction;
    int sources;
  };
  std::vector<ReductionStep> reduction_steps() const {
    const kernels::Reduction reduction = reduction_of(shape_.op);
    if (exchange_ == CopyEngineExchange::direct) return {{reduction, shape_.nranks}};
    if (reduction == kernels::Reduction::avg) {
      return {{kernels::Reduction::sum, 2}, {kernels::Reduction::avg, 2}};
    }
    return {{reduction, 2}};
  }

  std::size_t chunk_bytes(const kernels::ElementRange& chunk) const {
    return (chunk.end - chunk.begin) * size_of(shape_.type);
  }

  // What every part of one round on one rank works from.
  struct RoundView {
    cudaStream_t stream;
    int r;
    std::uint64_t offset;  // first element of the round
    kernels::RingGeometry geometry;
    kernels::ElementRange own;  // chunk r: reduced here, then gathered to every peer
    std::size_t own_bytes;
    CopyEngineFlags* mine;
    // Direct: per peer (r + step) % n for step 1 .. n - 1, our slot of its flags and its slot of
    // ours. Ring: per step 0 .. n - 2, that step's slot of rank r + 1's flags and of ours.
    std::vector<std::uint32_t*> peer_arrived, peer_gathered, my_arrived, my_gathered;
  };

  RoundView view_of(const RankContext& rank, const RankPlan& plan, int round) const {
    const int n = shape_.nranks;
    RoundView v;
    v.stream = rank.stream;
    v.r = rank.rank;
    v.offset = static_cast<std::uint64_t>(round) * round_elements_;
    v.geometry = {std::min(round_elements_, shape_.counts.param - v.offset), n, 1, 1,
                  static_cast<int>(16 / size_of(shape_.type))};
    v.own = kernels::ring_chunk(v.geometry, v.r);
    v.own_bytes = chunk_bytes(v.own);
    v.mine = flags_of(plan, v.r);
    RoundFlags* raised = &v.mine->raised;  // addresses only: the memory is the GPU's
    if (exchange_ == CopyEngineExchange::ring) {
      RoundFlags* next = &flags_of(plan, (v.r + 1) % n)->raised;
      for (int step = 0; step + 1 < n; ++step) {
        v.peer_arrived.push_back(&next->arrived[step]);
        v.peer_gathered.push_back(&next->gathered[step]);
        v.my_arrived.push_back(&raised->arrived[step]);
        v.my_gathered.push_back(&raised->gathered[step]);
      }
      return v;
    }
    for (int step = 1; step < n; ++step) {
      const int peer = (v.r + step) % n;  // every rank sends to a different rank at each step
      v.peer_arrived.push_back(&flags_of(plan, peer)->raised.arrived[v.r]);
      v.peer_gathered.push_back(&flags_of(plan, peer)->raised.gathered[v.r]);
      v.my_arrived.push_back(&raised->arrived[peer]);
      v.my_gathered.push_back(&raised->gathered[peer]);
    }
    return v;
  }

  void enqueue_round(const RankContext& rank, const RankPlan& plan, int round) {
    const RoundView v = view_of(rank, plan, round);
    if (exchange_ == CopyEngineExchange::ring) return enqueue_ring_round(plan, v);
    for (LaunchPart part :
         {LaunchPart::send, LaunchPart::reduce, LaunchPart::gather, LaunchPart::finish})
      enqueue_part(plan, v, part);
  }

  void enqueue_part(const RankPlan& plan, const RoundView& v, LaunchPart part) const {
    switch (part) {
      case LaunchPart::send:
        return enqueue_send(plan, v);
      case LaunchPart::reduce:
        return enqueue_reduce(plan, v);
      case LaunchPart::gather:
        return enqueue_gather(plan, v);
      case LaunchPart::finish:
        return enqueue_finish(v);
    }
  }

  // 1. Scatter: chunk `peer` of our input into slot r of that rank's staging; then tell it.
  void enqueue_send(const RankPlan& plan, const RoundView& v) const {
    const int n = shape_.nranks;
    for (int step = 1; step < n; ++step) {
      const int peer = (v.r + step) % n;
      const kernels::ElementRange chunk = kernels::ring_chunk(v.geometry, peer);
      const std::size_t bytes = chunk_bytes(chunk);
      if (bytes == 0) continue;
      CB_CUDA_CHECK(cudaMemcpyAsync(staging_of(plan, peer) + v.r * slot_bytes_,
                                    element_at(plan.send, v.offset + chunk.begin, shape_.type),
                                    bytes, cudaMemcpyDefault, v.stream));
    }
    enqueue_flag_writes(v.stream, v.peer_arrived, 1, v.r);
  }

  // 2. Once every peer's piece of chunk r is here: reduce them, in rank order, into our output.
  void enqueue_reduce(const RankPlan& plan, const RoundView& v) const {
    const int n = shape_.nranks;
    enqueue_flag_waits(v.stream, v.my_arrived, 1, v.r);
    // Before our gathered flags go out (gather follows reduce): no rank starts its next round
    // (and raises arrived again) before it has seen them.
    enqueue_reset(v, &RoundFlags::arrived);
    kernels::ReduceSourcesArgs reduce{};
    for (int source = 0; source < n; ++source) {
      reduce.sources[source] = source == v.r
                                   ? element_at(plan.send, v.offset + v.own.begin, shape_.type)
                                   : staging_of(plan, v.r) + source * slot_bytes_;
    }
    reduce.out = element_at(plan.recv, v.offset + v.own.begin, shape_.type);
    reduce.count = v.own.end - v.own.begin;
    reduce.nranks = n;
    reduce.type = element_type_of(shape_.type);
    reduce.reduction = reduction_of(shape_.op);
    reduce.max_blocks = reduce_blocks_;
    kernels::launch_reduce_sources(reduce, v.stream);
    CB_CHECK_LAUNCH();
  }

  // 3. All-gather: our reduced chunk into every other rank's output; then tell them.
  void enqueue_gather(const RankPlan& plan, const RoundView& v) const {
    const int n = shape_.nranks;
    if (v.own_bytes != 0) {
      const void* reduced = element_at(plan.recv, v.offset + v.own.begin, shape_.type);
      for (int step = 1; step < n; ++step) {
        const int peer = (v.r + step) % n;
        CB_CUDA_CHECK(
            cudaMemcpyAsync(element_at(recv_of(plan, peer), v.offset + v.own.begin, shape_.type),
                            reduced, v.own_bytes, cudaMemcpyDefault, v.stream));
      }
    }
    enqueue_flag_writes(v.stream, v.peer_gathered, 1, v.r);
  }

  // The ring's round on rank r, all on one stream. Reduce-scatter: at step s rank r sends chunk
  // r - 1 - s to r + 1 (step 0 its own input, later the partial it has just reduced), so the
  // partial of chunk c ends, complete, at rank c. All-gather: at step t rank r forwards chunk
  // r - t of its output (its own first, then the one that has just arrived) to r + 1.
  // Each flag array goes back to zero after its last wait and before anything that lets rank
  // r - 1 raise it again: that rank's next round starts after it has received our own chunk
  // round the ring, which we send after the arrived reset; its next gather into us comes after
  // our next round's first send, which follows the gathered reset.
  void enqueue_ring_round(const RankPlan& plan, const RoundView& v) const {
    const int n = shape_.nranks;
    const int next = (v.r + 1) % n;
    auto chunk_of = [&](int step_back) {
      return kernels::ring_chunk(v.geometry, (v.r - step_back + 2 * n) % n);
    };
    auto send_partial = [&](const void* from, const kernels::ElementRange& chunk, int step) {
      if (chunk_bytes(chunk) != 0) {
        CB_CUDA_CHECK(cudaMemcpyAsync(staging_of(plan, next) + step * slot_bytes_, from,
                                      chunk_bytes(chunk), cudaMemcpyDefault, v.stream));
      }
      enqueue_flag_writes(v.stream, {v.peer_arrived[step]}, 1, v.r);
    };
    const kernels::ElementRange first = chunk_of(1);
    send_partial(element_at(plan.send, v.offset + first.begin, shape_.type), first, 0);
    const kernels::Reduction reduction = reduction_of(shape_.op);
    for (int step = 0; step + 1 < n; ++step) {
      const bool last = step + 2 == n;
      const kernels::ElementRange chunk = chunk_of(step + 2);  // what rank r - 1 sent at `step`
      enqueue_flag_waits(v.stream, {v.my_arrived[step]}, 1, v.r);
      kernels::ReduceSourcesArgs reduce{};
      reduce.sources[0] = staging_of(plan, v.r) + step * slot_bytes_;
      reduce.sources[1] = element_at(plan.send, v.offset + chunk.begin, shape_.type);
      void* partial = element_at(plan.recv, v.offset + chunk.begin, shape_.type);
      reduce.out = partial;
      reduce.count = chunk.end - chunk.begin;
      reduce.nranks = 2;
      reduce.average_over = n;
      reduce.type = element_type_of(shape_.type);
      reduce.reduction =
          !last && reduction == kernels::Reduction::avg ? kernels::Reduction::sum : reduction;
      reduce.max_blocks = reduce_blocks_;
      kernels::launch_reduce_sources(reduce, v.stream);
      CB_CHECK_LAUNCH();
      if (!last) send_partial(partial, chunk, step + 1);
    }
    enqueue_reset(v, &RoundFlags::arrived);
    for (int step = 0; step + 1 < n; ++step) {
      if (step > 0) enqueue_flag_waits(v.stream, {v.my_gathered[step - 1]}, 1, v.r);
      const kernels::ElementRange chunk = chunk_of(step);
      if (chunk_bytes(chunk) != 0) {
        CB_CUDA_CHECK(
            cudaMemcpyAsync(element_at(recv_of(plan, next), v.offset + chunk.begin, shape_.type),
                            element_at(plan.recv, v.offset + chunk.begin, shape_.type),
                            chunk_bytes(chunk), cudaMemcpyDefault, v.stream));
      }
      enqueue_flag_writes(v.stream, {v.peer_gathered[step]}, 1, v.r);
    }
    enqueue_finish(v);
  }

  // One of this rank's flag arrays back to zero (from its reset words: see request_abort).
  using FlagArray = std::uint32_t[kernels::kMaxPeerRanks];
  void enqueue_reset(const RoundView& v, FlagArray RoundFlags::*flags) const {
    CB_CUDA_CHECK(cudaMemcpyAsync(v.mine->raised.*flags, v.mine->reset.*flags, sizeof(FlagArray),
                                  cudaMemcpyDeviceToDevice, v.stream));
  }

  // 4. Wait until every peer's reduced chunk is in our output (ring: the last step's).
  void enqueue_finish(const RoundView& v) const {
    if (exchange_ == CopyEngineExchange::ring) {
      enqueue_flag_waits(v.stream, {v.my_gathered.back()}, 1, v.r);
    } else {
      enqueue_flag_waits(v.stream, v.my_gathered, 1, v.r);
    }
    // Before our next round raises arrived: no rank gathers into us again before that.
    enqueue_reset(v, &RoundFlags::gathered);
  }

  PeerGroup peers_;
  std::size_t round_bytes_;
  int reduce_blocks_;  // CopyEngineTuning::reduce_blocks
  CopyEngineExchange exchange_;
  std::vector<DeviceBuffer> flags_;    // CopyEngineFlags per local rank
  std::vector<DeviceBuffer> staging_;  // per local rank: nranks slots of slot_bytes_
  std::vector<Stream> abort_streams_;  // per local rank: where request_abort writes
  std::size_t slot_bytes_ = 0;
  // The prepared case.
  CaseShape shape_{};
  std::uint64_t round_elements_ = 0;
  int rounds_ = 0;
  std::vector<PeerGroup::PeerTable> tables_;  // flags, recv, staging
  std::vector<RankPlan> plans_;               // per local rank (PeerGroup::local_index)
};

}  // namespace

RoundSplit equal_rounds(std::uint64_t count, std::uint64_t largest, std::uint64_t unit) {
  if (count == 0) return {unit, 0};
  largest = std::max(unit, largest / unit * unit);
  const std::uint64_t fewest = (count + largest - 1) / largest;
  const std::uint64_t share = (count + fewest - 1) / fewest;
  const std::uint64_t elements = (share + unit - 1) / unit * unit;  // <= largest
  // Rounding the share up to whole units may leave fewer rounds than `fewest`, never more.
  return {elements, static_cast<int>((count + elements - 1) / elements)};
}

void CopyEngineTuning::validate() const {
  if (reduce_blocks < 1) {
    throw UsageError(fmt::format("ce_reduce_blocks={} is not positive", reduce_blocks));
  }
}

std::unique_ptr<HandbuiltAlgorithm> make_copy_engine(const std::vector<RankContext>& ranks,
                                                     const CopyEngineTuning& tuning,
                                                     CopyEngineExchange exchange) {
  tuning.validate();
  return std::make_unique<CopyEngineAlgorithm>(ranks, tuning, exchange);
}

const TuningSettings<CopyEngineTuning>& copy_engine_settings() {
  static const TuningSettings<CopyEngineTuning> settings = {
      bytes_setting("ce_round_bytes", &CopyEngineTuning::round_bytes, 4096, std::size_t{1} << 34,
                    "the buffer moves in equal rounds of at most this many bytes"),
      integer_setting("ce_reduce_blocks", &CopyEngineTuning::reduce_blocks, 1,
                      kernels::kReduceSourcesMaxBlocks,
                      "512-thread blocks of each reduction at most"),
      peer_timeout_setting<CopyEngineTuning>()};
  return settings;
}

const HandbuiltDescriptor& copy_engine_descriptor() {
  static const HandbuiltDescriptor descriptor{
      "copy_engine",
      "copy engines move every rank's input to every peer; a small kernel reduces",
      "kernels/copy_engine/",
      "ce",
      specs_of(copy_engine_settings()),
      {/*concurrent_instances=*/true, /*launch_in_parts=*/true, /*fused_update=*/false},
      maker_of(copy_engine_settings(),
               [](const std::vector<RankContext>& ranks, const CopyEngineTuning& tuning) {
                 return make_copy_engine(ranks, tuning, CopyEngineExchange::direct);
               })};
  return descriptor;
}

const HandbuiltDescriptor& copy_engine_ring_descriptor() {
  static const HandbuiltDescriptor descriptor{
      "copy_engine_ring",
      "copy engines round a ring (each rank copies to the next only); kernels reduce",
      "kernels/copy_engine/",
      "ce",
      specs_of(copy_engine_settings()),
      {/*concurrent_instances=*/true, /*launch_in_parts=*/false, /*fused_update=*/false},
      maker_of(copy_engine_settings(),
               [](const std::vector<RankContext>& ranks, const CopyEngineTuning& tuning) {
                 return make_copy_engine(ranks, tuning, CopyEngineExchange::ring);
               })};
  return descriptor;
}

}  // namespace collbench
