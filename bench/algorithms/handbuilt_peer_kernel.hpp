// What the peer-kernel hand-built algorithms (one kernel per rank reading and writing its peers'
// memory) share: their PeerGroup, one kernel argument block per local rank (filled by the derived
// prepare_arguments()), the launch loop with its one-kernel graphs, and the hooks that close peer
// mappings, stop waiting kernels and report a kernel that gave up.
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <vector>

#include "algorithms/handbuilt_algorithms.hpp"
#include "algorithms/handbuilt_peer_group.hpp"
#include "algorithms/peer_tuning.hpp"
#include "core/errors.hpp"
#include "ring/ring_schedule.hpp"
#include "runtime/cuda_resources.hpp"
#include "runtime/stream_capture.hpp"

namespace collbench {

// `kLaunchKernel` enqueues one rank's kernel for its prepared arguments.
template <typename RankArgs, void (*kLaunchKernel)(const RankArgs&, cudaStream_t)>
class PeerKernelAlgorithm : public HandbuiltAlgorithm {
 public:
  PeerKernelAlgorithm(const std::vector<RankContext>& ranks, const PeerTuning& peer,
                      PeerKernelLaunch launch)
      : peers_(ranks, peer.timeout_s, peer.allow_shared_gpus), launch_mode_(launch) {}

  void prepare(const std::vector<RankContext>& ranks, const std::vector<RankBuffers>& buffers,
               const CaseShape& shape) final {
    launch_graphs_.clear();
    prepare_arguments(ranks, buffers, shape);
    if (launch_mode_ == PeerKernelLaunch::graph && !launches_directly(shape) &&
        shape.counts.param != 0) {
      capture_launch_graphs(ranks);
    }
  }

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
        enqueue(a,
                launch_graphs_.empty() ? nullptr : &launch_graphs_[peers_.local_index(rank.rank)],
                rank.stream);
      }
    }
  }

  void release() override {
    launch_graphs_.clear();  // their kernels point into the mappings released next
    peers_.release();
  }
  void request_abort() noexcept override { peers_.request_abort(); }
  void check_health() const override { peers_.check_health(name()); }

 protected:
  // Once per case, from prepare(): checks the shape, sets up the algorithm's memory and fills
  // args_ for every local rank.
  virtual void prepare_arguments(const std::vector<RankContext>& ranks,
                                 const std::vector<RankBuffers>& buffers,
                                 const CaseShape& shape) = 0;
  // Whether this case's kernel is launched itself even where the tuning asks for one-kernel
  // graphs (oneshot's programmatic launches).
  virtual bool launches_directly(const CaseShape& /*shape*/) const { return false; }

  // This process's ranks' inputs, outputs, flags and staging, in prepare()'s order, as exchange()
  // takes them; staging null for every rank when `staging` is.
  struct LocalPointers {
    std::vector<void*> sends, recvs, signals, staging;
  };
  LocalPointers local_pointers(const std::vector<RankContext>& ranks,
                               const std::vector<RankBuffers>& buffers,
                               const std::vector<DeviceBuffer>& signals,
                               const std::vector<DeviceBuffer>* staging) const {
    LocalPointers pointers;
    for (std::size_t local = 0; local < ranks.size(); ++local) {
      const int index = peers_.local_index(ranks[local].rank);
      pointers.sends.push_back(const_cast<void*>(buffers[local].send));
      pointers.recvs.push_back(buffers[local].recv);
      pointers.signals.push_back(signals[index].get());
      pointers.staging.push_back(staging ? (*staging)[index].get() : nullptr);
    }
    return pointers;
  }

  // The arguments every geometry-cut kernel (ring, twoshot) takes alike, for rank `rank`.
  template <typename GeometryArgs>
  void fill_case_fields(GeometryArgs& a, int rank, const kernels::RingGeometry& geometry,
                        const CaseShape& shape, bool aligned) const {
    a.abort = peers_.abort_for(rank);
    a.geometry = geometry;
    a.rank = rank;
    a.type = element_type_of(shape.type);
    a.reduction = reduction_of(shape.op);
    a.aligned = aligned;
  }

  // A base member: destroyed after every buffer of the derived algorithm, whose destructor must
  // call peers_.request_abort() first so that a kernel still waiting on a peer lets them be freed.
  PeerGroup peers_;
  std::vector<RankArgs> args_;  // per local rank (PeerGroup::local_index), for the prepared case

 private:
  // Each local rank's kernel for the prepared case, captured into a graph of its own. The kernels
  // take their launch counts from device memory, so replaying fixed arguments is what a launch
  // does. Instantiating also loads the kernel, before any launch can wait on a peer.
  void capture_launch_graphs(const std::vector<RankContext>& ranks) {
    std::vector<GraphExec> graphs(peers_.size());
    for (const RankContext& rank : ranks) {
      StreamCapture capture({rank});
      {
        ScopedDevice on(rank.device, rank.rank);
        kLaunchKernel(args_.at(peers_.local_index(rank.rank)), rank.stream);
        CB_CHECK_LAUNCH();
      }
      graphs[peers_.local_index(rank.rank)] = std::move(instantiate(capture.finish()).front());
    }
    launch_graphs_ = std::move(graphs);
  }

  // A caller capturing its stream gets the kernel itself, so its graph stays one flat graph.
  static void enqueue(const RankArgs& args, const GraphExec* graph, cudaStream_t stream) {
    if (graph != nullptr) {
      cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
      CB_CUDA_CHECK(cudaStreamIsCapturing(stream, &capturing));
      if (capturing == cudaStreamCaptureStatusNone) {
        CB_CUDA_CHECK(cudaGraphLaunch(graph->get(), stream));
        return;
      }
    }
    kLaunchKernel(args, stream);
    CB_CHECK_LAUNCH();
  }

  PeerKernelLaunch launch_mode_;
  std::vector<GraphExec> launch_graphs_;  // per local rank; empty: launch the kernel directly
};

}  // namespace collbench
