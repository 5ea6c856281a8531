// "ring_sendrecv": the ring schedule of kernels/ring/ring_schedule.hpp on NCCL point-to-point
// calls, the textbook version: per step one group of ncclSend/ncclRecv over all ranks, then (during
// reduce-scatter) a reduction kernel per rank. Needs no peer access and works across processes.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <stdexcept>

#include "algorithms/algorithm_registry.hpp"
#include "algorithms/handbuilt_algorithms.hpp"
#include "algorithms/handbuilt_peer_group.hpp"
#include "core/errors.hpp"
#include "ring/ring_schedule.hpp"
#include "ring_sendrecv/ring_sendrecv_reduce.hpp"
#include "runtime/nccl_registration.hpp"

namespace collbench {
namespace {

class RingSendrecvAlgorithm final : public HandbuiltAlgorithm {
 public:
  std::string_view name() const override { return "ring_sendrecv"; }
  std::string unsupported_reason(const CaseShape& shape) const override {
    return handbuilt_shape_reason(shape);
  }

  ~RingSendrecvAlgorithm() override {
    // The communicators' abort freed the registrations: deregistering now would touch freed state.
    if (aborted_) {
      for (Scratch& scratch : scratch_) scratch.registration.forget();
    }
  }

  void prepare(const std::vector<RankContext>& ranks, const std::vector<RankBuffers>&,
               const CaseShape& shape) override {
    if (std::string why = unsupported_reason(shape); !why.empty()) {
      throw UsageError("ring_sendrecv: " + why);
    }
    // The largest chunk a rank receives before reducing it.
    const kernels::RingGeometry g = geometry(shape);
    std::size_t chunk_bytes = 1;
    for (int c = 0; c < shape.nranks; ++c) {
      const kernels::ElementRange chunk = kernels::ring_chunk(g, c);
      chunk_bytes =
          std::max<std::size_t>(chunk_bytes, (chunk.end - chunk.begin) * size_of(shape.type));
    }
    if (scratch_.size() != ranks.size() || scratch_bytes_ < chunk_bytes ||
        scratch_mode_ != shape.registration) {
      remake_scratch(ranks, chunk_bytes, shape.registration);
    }
    // Loaded now, while no NCCL kernel of this case waits on a peer: a lazy load inside launch()
    // would wait for the device, and so for a hung receive, with no deadline watching the host.
    for (const RankContext& rank : ranks) {
      ScopedDevice on(rank.device, rank.rank);
      CB_CUDA_CHECK(
          kernels::preload_reduce_into(element_type_of(shape.type), reduction_of(shape.op)));
    }
  }

  // Per step a send/recv group and a reduction, and the gather's steps: under 4 per peer.
  int stream_operations(const CaseShape& shape, int aggregate) const override {
    return 4 * shape.nranks * aggregate;
  }

  void launch(const std::vector<RankContext>& ranks, const std::vector<RankBuffers>& buffers,
              const CaseShape& shape, int aggregate) override {
    if (shape.counts.param == 0) return;
    const kernels::RingGeometry g = geometry(shape);
    for (int repeat = 0; repeat < aggregate; ++repeat) {
      for (int step = 0; step < kernels::ring_step_count(shape.nranks); ++step) {
        exchange_step(ranks, buffers, shape, g, step);
        if (step < shape.nranks - 1) reduce_step(ranks, buffers, shape, g, step);
      }
    }
  }

  // Nothing of ours waits on a peer: NCCL's own abort (ncclCommAbort), which follows, stops its
  // kernels and frees the scratch registrations.
  void request_abort() noexcept override { aborted_ = true; }
  void check_health() const override {}

 private:
  static kernels::RingGeometry geometry(const CaseShape& shape) {
    return {shape.counts.param, shape.nranks, 1, 1, static_cast<int>(16 / size_of(shape.type))};
  }

  // Every rank sends to rank + 1 the chunk that rank + 1's task of this step reads, and receives
  // its own task's chunk: into scratch to be reduced (reduce-scatter) or in place (all-gather).
  void exchange_step(const std::vector<RankContext>& ranks, const std::vector<RankBuffers>& buffers,
                     const CaseShape& shape, const kernels::RingGeometry& g, int step) {
    const ncclDataType_t type = nccl_type_of(shape.type);
    CB_NCCL_CHECK(ncclGroupStart());
    for (std::size_t local = 0; local < ranks.size(); ++local) {
      const RankContext& rank = ranks[local];
      ScopedDevice on(rank.device, rank.rank);
      const int next = (rank.rank + 1) % shape.nranks;
      const int previous = (rank.rank - 1 + shape.nranks) % shape.nranks;
      const kernels::RingTask outgoing = kernels::ring_task(g, next, step);
      const kernels::ElementRange sent = kernels::ring_chunk(g, outgoing.chunk);
      if (sent.end > sent.begin) {
        const void* source = outgoing.peer_input ? buffers[local].send : buffers[local].recv;
        CB_NCCL_CHECK(ncclSend(element_at(source, sent.begin, shape.type), sent.end - sent.begin,
                               type, next, rank.comm, rank.stream));
      }
      const kernels::RingTask incoming = kernels::ring_task(g, rank.rank, step);
      const kernels::ElementRange received = kernels::ring_chunk(g, incoming.chunk);
      if (received.end > received.begin) {
        void* target = incoming.reduce
                           ? scratch_of(rank.rank)
                           : element_at(buffers[local].recv, received.begin, shape.type);
        CB_NCCL_CHECK(ncclRecv(target, received.end - received.begin, type, previous, rank.comm,
                               rank.stream));
      }
    }
    CB_NCCL_CHECK(ncclGroupEnd());
  }

  void reduce_step(const std::vector<RankContext>& ranks, const std::vector<RankBuffers>& buffers,
                   const CaseShape& shape, const kernels::RingGeometry& g, int step) {
    for (std::size_t local = 0; local < ranks.size(); ++local) {
      const RankContext& rank = ranks[local];
      const kernels::RingTask task = kernels::ring_task(g, rank.rank, step);
      const kernels::ElementRange chunk = kernels::ring_chunk(g, task.chunk);
      ScopedDevice on(rank.device, rank.rank);
      kernels::launch_reduce_into(
          {element_at(buffers[local].recv, chunk.begin, shape.type), scratch_of(rank.rank),
           element_at(buffers[local].send, chunk.begin, shape.type), chunk.end - chunk.begin,
           element_type_of(shape.type), reduction_of(shape.op),
           shape.op == ReduceOp::avg && task.finalize, shape.nranks},
          rank.stream);
      CB_CHECK_LAUNCH();
    }
  }

  // Each side of an NCCL send/recv decides alone whether it goes zero-copy: when its buffer is
  // registered and NCCL could map it into the peer (ncclMemAlloc memory; cudaMalloc memory only
  // with NCCL_LEGACY_CUDA_REGISTER=1). One side zero-copy and the other not hangs both kernels
  // (NCCL's bufferreg.rst: mixing registered and unregistered buffers, or allocators, is
  // undefined). So the scratch that receives what the case's buffers send is allocated as they are
  // (uses_nccl_memory) and registered whenever they are: locally, since send/recv looks buffers up
  // among local registrations, which a window makes too.
  void remake_scratch(const std::vector<RankContext>& ranks, std::size_t chunk_bytes,
                      BufferRegistration mode) {
    for (const RankContext& rank : ranks) {
      // No earlier launch may still use the old scratch.
      ScopedDevice on(rank.device, rank.rank);
      CB_CUDA_CHECK(cudaStreamSynchronize(rank.stream));
    }
    scratch_.clear();  // each one's registration before its memory
    scratch_ranks_.clear();
    scratch_bytes_ = 0;
    scratch_.reserve(ranks.size());
    for (const RankContext& rank : ranks) {
      Scratch& scratch = scratch_.emplace_back();
      if (uses_nccl_memory(mode)) {
        scratch.nccl_memory = NcclMemory(rank.device, chunk_bytes);
      } else {
        scratch.plain = DeviceBuffer(rank.device, chunk_bytes);
      }
      if (mode != BufferRegistration::none) {
        scratch.registration =
            NcclRegistration(rank.comm, scratch.get(), chunk_bytes, rank.device, rank.rank);
      }
      scratch_ranks_.push_back(rank.rank);
    }
    scratch_bytes_ = chunk_bytes;
    scratch_mode_ = mode;
  }

  // Rank `rank`'s scratch; launch() may be given a subset of prepare()'s ranks.
  void* scratch_of(int rank) const {
    for (std::size_t i = 0; i < scratch_ranks_.size(); ++i) {
      if (scratch_ranks_[i] == rank) return scratch_[i].get();
    }
    throw std::logic_error(fmt::format("ring_sendrecv: rank {} was not prepared", rank));
  }

  // One rank's receive scratch: cudaMalloc or ncclMemAlloc memory as the case's buffers are, and
  // its local registration in registered cases.
  struct Scratch {
    DeviceBuffer plain;
    NcclMemory nccl_memory;
    NcclRegistration registration;  // declared after the memory: released before it
    void* get() const { return plain ? plain.get() : nccl_memory.get(); }
  };

  std::vector<Scratch> scratch_;    // per local rank, in prepare()'s order
  std::vector<int> scratch_ranks_;  // the rank each scratch buffer belongs to
  std::size_t scratch_bytes_ = 0;
  BufferRegistration scratch_mode_ = BufferRegistration::none;  // the case buffers' it follows
  std::atomic<bool> aborted_{false};
};

}  // namespace

const HandbuiltDescriptor& ring_sendrecv_descriptor() {
  static const HandbuiltDescriptor descriptor{
      "ring_sendrecv",
      "the same ring on NCCL send/recv, reduced by a kernel of its own",
      "kernels/ring_sendrecv/",
      "ring_sendrecv",
      {},  // nothing to tune: NCCL's point-to-point calls move the data
      nccl_transfer_capabilities(),
      [](const std::vector<RankContext>&, const SettingValues&) {
        return std::make_unique<RingSendrecvAlgorithm>();
      }};
  return descriptor;
}

}  // namespace collbench
