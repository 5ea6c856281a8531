// The data-parallel trainer: one ModelReplica per GPU driven by this process, three streams and
// the step's events per rank, the gradient collectives, and the step schedules, run eagerly
// (every kernel launched from the host) or captured once per rank into CUDA graphs and replayed,
// so one host thread keeps several GPUs busy. Measures per-step times (slowest rank per step).
//
// Ranks are local ranks 0..n-1 on GPUs 0..n-1 of one process (launch_mode single_process). What
// is per rank (replica, streams, events) is separate from what spans ranks (GradientSync, which
// reaches the others only through the communicator), so a one-process-per-GPU launch needs only
// a different way to make communicators and to take the maximum of step times across processes.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "cuda_resources.hpp"
#include "dp_config.hpp"
#include "dp_report.hpp"
#include "gradient_sync.hpp"
#include "model_replica.hpp"
#include "nccl_communicator.hpp"
#include "parameter_layout.hpp"
#include "step_schedule.hpp"

namespace collbench::dp {

class DataParallelTrainer {
 public:
  // GPUs 0..config.ranks-1; `communicators` holds one per rank when config.ranks > 1. Throws
  // UnsupportedConfig, UsageError (impossible --epilogue fused) or GpuError (out of memory ...).
  // When a wait fails (timeout, NCCL error, signal) the trainer aborts the communicators before
  // it throws, so no GPU is left waiting for a peer; the caller must then make new ones.
  DataParallelTrainer(const StepConfig& config, std::vector<NcclCommunicator>& communicators);
  // One GPU, no communicators.
  explicit DataParallelTrainer(const StepConfig& config);
  ~DataParallelTrainer();
  DataParallelTrainer(const DataParallelTrainer&) = delete;
  DataParallelTrainer& operator=(const DataParallelTrainer&) = delete;

  int ranks() const { return static_cast<int>(replicas_.size()); }
  const ParameterLayout& layout() const { return layout_; }
  bool fused_epilogues() const { return replicas_.front()->fused_epilogues(); }
  MemoryFootprint memory() const;  // the largest per field over the ranks
  std::uint64_t gradient_bytes() const;
  double bus_bytes() const;

  // Enqueues `steps` steps from the host (no graphs).
  void run_eager(int steps, StepVariant variant = StepVariant::full);
  // Waits until every rank's enqueued work is done; throws CaseTimeout after `timeout_s`,
  // Interrupted on SIGINT/SIGTERM, GpuError on a CUDA or NCCL failure.
  void synchronize(double timeout_s);
  // Per-step times in microseconds (slowest rank per step) of `iters` steps after `warmup`
  // untimed ones; with `graphs` the step is captured once per variant and replayed.
  std::vector<double> measure(StepVariant variant, int warmup, int iters, bool graphs,
                              double timeout_s);

  // After synchronize(): the mean over ranks of each rank's loss of the last forward pass.
  double loss() const;
  // The gradient every replica applied in the last step, assembled from where the scheme leaves
  // it (any rank after all-reduce, rank 0 for ps, the owners' chunks for sharded), in model order
  // (layer 0 weight, layer 0 bias, ...), padding dropped.
  std::vector<double> applied_gradient() const;
  // Rank `rank`'s weights in model order.
  std::vector<double> parameters(int rank) const;
  // Weight elements (padding included) whose bits differ from rank 0's, over all other ranks.
  std::uint64_t differing_weight_elements() const;

 private:
  struct RankResources;
  using SyncEvent = DeviceHandle<cudaEvent_t, EventTraits>;

  void enqueue(const StepSchedule& schedule);
  void execute_on_rank(const StepOp& op, int rank);
  cudaStream_t stream_of(int rank, StreamRole role) const;
  const StepSchedule& schedule(StepVariant variant) const;
  std::vector<GraphExec>& graphs(StepVariant variant);
  void wait_for_events(const std::vector<const Event*>& events, double timeout_s);
  void wait_or_throw(const std::vector<const Event*>& events, double timeout_s);
  void abort_communication() noexcept;
  std::vector<unsigned char> copy_to_host(int rank, const void* device_pointer,
                                          std::size_t bytes) const;
  std::vector<double> in_model_order(const std::vector<unsigned char>& flat) const;

  StepConfig config_;
  ParameterLayout layout_;
  std::vector<NcclCommunicator> no_communicators_;
  std::vector<NcclCommunicator>* communicators_;
  std::vector<std::unique_ptr<ModelReplica>> replicas_;
  std::vector<std::unique_ptr<RankResources>> resources_;
  std::unique_ptr<GradientSync> sync_;  // null for one rank
  StepSchedule schedules_[3];
  std::optional<std::vector<GraphExec>> graphs_[3];
  std::vector<std::vector<Event>> timing_events_;  // per rank
};

}  // namespace collbench::dp
