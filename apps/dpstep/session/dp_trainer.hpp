// The data-parallel trainer: one ModelReplica per rank this process drives, three streams and
// the step's events per rank, the gradient collectives, and the step schedules, run eagerly
// (every kernel launched from the host) or captured once per rank into CUDA graphs and replayed,
// so one host thread keeps several GPUs busy. Measures per-step times (slowest rank per step).
//
// A process drives every rank (launch mode single_process: ranks 0..n-1 on GPUs 0..n-1) or one
// (one process per GPU: its rank in a split of the world, on its own GPU, training its own slice
// of the data). What is per rank (replica, streams, events) is kept apart from what spans ranks:
// the gradient collectives (GradientSync) and the small all-reduces that turn per-rank figures
// into the run's (the slowest rank's step times, the mean loss, weights that differ from rank
// 0's). Those reach the other ranks only through the communicator, so both launches run the same
// code. Methods marked "collective" must be called by every process that holds ranks of the
// configuration, in the same order.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "dp_config.hpp"
#include "model/model_replica.hpp"
#include "model/parameter_layout.hpp"
#include "runtime/cuda_resources.hpp"
#include "runtime/nccl_communicator.hpp"
#include "schedule/compute_lockstep.hpp"
#include "schedule/gradient_sync.hpp"
#include "schedule/step_schedule.hpp"
#include "session/dp_report.hpp"

namespace collbench::dp {

// How a measured pass warms up and what it records beside the times.
struct PassSettings {
  // Warm-up steps continue until this much time has passed since the first (0: `warmup` steps
  // only), so that the timed steps run in the GPUs' steady (power-capped) state.
  double warmup_ms = 0;
  // The GPUs' SM clock, power and clock-event reasons through the timed steps (PowerSampler);
  // the warm-up's work is drained first so that the samples cover the timed steps (and one untimed
  // step that leads them, so that every GPU is busy when the first timed step starts).
  bool sample_power = false;
};

class DataParallelTrainer {
 public:
  // config.ranks > 1: this process drives one rank per communicator in `communicators`, with that
  // communicator's rank and GPU: all ranks (create_step_communicators) or its own one
  // (split_step_communicators). config.ranks == 1: `communicators` is empty and the one rank runs
  // on `device`. `collective_timeout_s` bounds how long the trainer's own bookkeeping collectives
  // (loss, agreements, the teardown barrier) wait for the other ranks. Collective. Throws
  // UnsupportedConfig, UsageError (impossible --epilogue fused) or GpuError (out of memory here
  // or on another rank ...). When a wait fails (timeout, NCCL error, signal) the trainer aborts
  // the communicators before it throws, so no GPU is left waiting for a peer; the caller must
  // then make new ones.
  DataParallelTrainer(const StepConfig& config, std::vector<NcclCommunicator>& communicators,
                      int device = 0, double collective_timeout_s = 120);
  // One rank on `device`, no communicators.
  explicit DataParallelTrainer(const StepConfig& config, int device = 0);
  // Waits for the GPUs, releases the collectives' algorithms, and passes a barrier with every
  // other rank before the replicas' buffers are freed: another process may map them (CUDA IPC)
  // until it has released too. Collective.
  ~DataParallelTrainer();
  DataParallelTrainer(const DataParallelTrainer&) = delete;
  DataParallelTrainer& operator=(const DataParallelTrainer&) = delete;

  // Ranks this process drives (config.ranks, or 1 with one process per GPU).
  int local_ranks() const { return static_cast<int>(replicas_.size()); }
  bool holds_rank(int rank) const;
  // The GPU of `rank`, which this process must hold (std::logic_error otherwise).
  int device_of(int rank) const;
  const ParameterLayout& layout() const { return layout_; }
  // Communication streams the step's buckets alternate over (GradientSync::lanes()); 1 alone.
  int comm_lanes() const { return sync_ ? sync_->lanes() : 1; }
  std::string_view epilogues() const { return replicas_.front()->epilogues(); }
  // Memset nodes the full step's graph (this process's first rank) had as kernel nodes
  // (StepConfig::graph_memsets); 0 before that graph is captured.
  std::size_t full_step_memset_kernels() const { return full_step_memset_kernels_; }
  // The largest per field over the local ranks. Rank 0 holds the largest state in every scheme,
  // so the process holding rank 0 reports the run's footprint.
  MemoryFootprint memory() const;
  std::uint64_t gradient_bytes() const;
  double bus_bytes() const;

  // Enqueues `steps` steps from the host (no graphs).
  void run_eager(int steps, StepVariant variant = StepVariant::full);
  // Waits until every local rank's enqueued work is done; throws CaseTimeout after `timeout_s`,
  // Interrupted on SIGINT/SIGTERM, GpuError on a CUDA or NCCL failure.
  void synchronize(double timeout_s);
  // Times in microseconds of `iters` steps after `warmup` untimed ones; with `graphs` the step is
  // captured once per variant and replayed. Collective.
  MeasuredSteps measure(StepVariant variant, int warmup, int iters, bool graphs, double timeout_s,
                        const PassSettings& settings = {});

  // After synchronize(): the mean over all ranks of each rank's loss of the last forward pass.
  // Collective.
  double loss();
  // The gradient every replica applied in the last step, assembled from where the scheme leaves
  // it (any rank after all-reduce, rank 0 for ps, the owners' chunks for sharded, gathered), in
  // model order (layer 0 weight, layer 0 bias, ...), padding dropped. Collective. Complete on the
  // process holding rank 0; elsewhere it may be empty.
  std::vector<double> applied_gradient();
  // Weights of `rank`, which this process must hold, in model order.
  std::vector<double> parameters(int rank) const;
  // Weight elements (padding included) whose bits differ from rank 0's, over all other ranks of
  // every process: rank 0's weights are broadcast to every rank, which counts its own
  // differences. Collective; the same on every process.
  std::uint64_t differing_weight_elements();
  // True when `holds` is true on every rank of every process. Collective.
  bool every_rank_agrees(bool holds);

 private:
  struct RankResources;
  using SyncEvent = DeviceHandle<cudaEvent_t, EventTraits>;

  void create_replicas(const std::vector<int>& rank_numbers);
  void enqueue(const StepSchedule& schedule);
  void execute_on_rank(const StepOp& op, int local);
  cudaStream_t stream_of(int local, StreamRole role) const;
  static cudaStream_t comm_stream(const RankResources& r, int lane);
  static const char* variant_name(StepVariant variant);  // "full", "compute_only" ...
  static constexpr int kStepVariants = 3;
  const StepSchedule& schedule(StepVariant variant) const;
  // The variant's step captured into one graph per local rank, captured on first use.
  std::vector<GraphExec>& graphs(StepVariant variant);
  // The phases of measure(): one step launched (or its graph replayed), the warm-up, the timing
  // events, and the combination of every rank's steps.
  void launch_step(StepVariant variant, bool use_graphs);
  void warm_up(StepVariant variant, int warmup, bool use_graphs, double timeout_s,
               const PassSettings& settings);
  void ensure_timing_events(int iters);
  void record_timing_event(int index);
  MeasuredSteps combine_steps(int iters, const std::vector<std::optional<PowerSummary>>& power,
                              bool sampled_power);
  void wait_for_events(const std::vector<const Event*>& events, double timeout_s);
  void wait_or_throw(const std::vector<const Event*>& events, double timeout_s);
  // The local ranks on their communication streams of `lane` (0: where every NCCL collective and
  // the host-value reductions run; 1, 2 ...: the other lanes of GradientSync::lanes()).
  std::vector<RankContext> comm_contexts(int lane = 0) const;
  // Waits for the communication streams (bounded by collective_timeout_s_), aborting on failure.
  void wait_for_collectives();
  // Per-rank values (one vector per local rank) reduced over every rank of the configuration.
  template <typename Value>
  std::vector<Value> reduce_over_ranks(const std::vector<std::vector<Value>>& per_local_rank,
                                       ncclRedOp_t op);
  // Every rank's gradients with each of `owned` broadcast from its owner (the reduced pieces of
  // schemes and updates that leave them on one rank), rank 0's copy on the host. Collective.
  std::vector<unsigned char> gradient_from_owners(
      const std::vector<GradientSync::OwnedRange>& owned);
  void release_collectives() noexcept;
  void abort_communication() noexcept;
  int local_index(int rank) const;
  std::vector<unsigned char> copy_to_host(int local, const void* device_pointer,
                                          std::size_t bytes) const;
  std::vector<double> in_model_order(const std::vector<unsigned char>& flat) const;
  // MeasuredSteps::power from each local rank's samples (nullopt: none) and the highest mean power
  // and instantaneous power over every rank (measure() reduces them with the step times; 0: no
  // rank read the instantaneous power); collective.
  std::optional<PowerSummary> slowest_power_state(
      const std::vector<std::optional<PowerSummary>>& per_local_rank, double highest_power_w,
      double highest_instant_power_w);

  StepConfig config_;
  ParameterLayout layout_;
  double collective_timeout_s_;
  std::vector<NcclCommunicator> no_communicators_;
  std::vector<NcclCommunicator>* communicators_;  // one per local rank, or none for one rank
  bool communication_aborted_ = false;
  std::vector<std::unique_ptr<ModelReplica>> replicas_;    // per local rank
  std::vector<std::unique_ptr<RankResources>> resources_;  // per local rank
  std::unique_ptr<GradientSync> sync_;                     // null for one rank
  std::unique_ptr<ComputeLockstep> lockstep_;              // StepConfig::lockstep with 2+ ranks
  StepSchedule schedules_[kStepVariants];
  std::optional<std::vector<GraphExec>> graphs_[kStepVariants];
  std::size_t full_step_memset_kernels_ = 0;
  std::vector<std::vector<Event>> timing_events_;  // per local rank
};

}  // namespace collbench::dp
