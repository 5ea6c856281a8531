// The collectives of a training step, per bucket, through the harness's algorithm registry (so
// the hand-built all-reduce implementations run here as soon as they are registered): an
// algorithm object, shape and per-rank buffers for each bucket's gradient collective and, for ps
// and sharded, its weight collective; plus which part of a bucket each rank's optimizer updates.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/algorithm.hpp"
#include "dp_config.hpp"
#include "model/model_replica.hpp"
#include "model/parameter_layout.hpp"

namespace collbench::dp {

// The configuration cannot run here (no such implementation, too few GPUs): reported skipped.
class UnsupportedConfig : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct UpdateRange {
  std::uint64_t begin = 0;         // first element in the flat buffers
  std::uint64_t count = 0;         // 0: this rank does not update this bucket
  std::uint64_t state_offset = 0;  // first element in the rank's optimizer state
};

// Optimizer state each rank holds under `scheme`.
OptimizerState optimizer_state(SyncScheme scheme, int rank, int nranks);
// The part of `bucket` that `rank` updates under `scheme`.
UpdateRange update_range(const ParameterLayout& layout, SyncScheme scheme, std::size_t bucket,
                         int rank);

class GradientSync {
 public:
  // `algo` is a registry name. `lane_contexts[l]` are the contexts of the ranks this process drives
  // (all `nranks` of the communicator, or one of them when each process drives one GPU) with their
  // communication stream of lane l; lane 0 always, more lanes for algorithms whose instances may
  // run concurrently (lanes()). `replicas` are index-aligned with them. Throws UnsupportedConfig
  // when the registry has no implementation of that name for a needed collective or it refuses a
  // bucket. Calls prepare() on every algorithm (outside timing and capture). `pipelined` asks for
  // the all-reduces in parts (pipelined()); it needs kPipelinedLanes lanes. `last_bucket_algo`,
  // when not empty, is the registry name the last bucket runs instead (StepConfig::
  // last_bucket_algo); the lanes follow `algo` alone (unless the last bucket is the only one), and
  // the last lane given is kept for that bucket when own_tail_lane(); else the schedule puts it on
  // the lane of its index. The pipelined schedule takes such a bucket only on a lane of its own.
  GradientSync(const ParameterLayout& layout, SyncScheme scheme, const std::string& algo,
               DataType type, int nranks,
               const std::vector<std::vector<RankContext>>& lane_contexts,
               const std::vector<const ModelReplica*>& replicas, bool pipelined = false,
               const std::string& last_bucket_algo = "");
  // Streams the buckets alternate over: every lane given (less the last bucket's own) when the
  // algorithm's instances run concurrently (copy_engine); else 1. NCCL needs one stream: one
  // communicator's operations must not overlap.
  int lanes() const { return lanes_; }
  // Whether the buckets' all-reduces run in parts (launch_part, step_schedule.hpp's pipelined
  // schedule): asked for, one implementation that launches every bucket in parts, an all-reduce
  // scheme. Then lanes() is kPipelinedLanes. An algorithm without parts (nccl, ring,
  // copy_engine_ring) keeps its lanes; copy_engine with a bucket of several rounds is
  // UnsupportedConfig.
  bool pipelined() const { return pipelined_; }
  // Whether the last bucket, run by last_bucket_algo, has a lane of its own, lane lanes() (the last
  // lane given): when the other buckets' implementation runs beside anything (copy_engine), so the
  // last bucket starts as soon as its gradients exist instead of queueing behind another bucket's
  // transfers.
  bool own_tail_lane() const { return own_tail_lane_; }

  // Readies the last bucket's all-reduce to run its SGD update (launch(..., with_update)) through
  // the algorithm's FusedUpdate (twoshot's): maps every rank's weights of the bucket into every
  // rank's kernel, since each chunk's owner writes them all. Once, after construction, outside
  // capture; collective across processes. Throws UnsupportedConfig for an implementation without.
  void prepare_fused_update();
  // Enqueues bucket `bucket`'s collective `phase` (0: gradients, 1: weights) on every local rank,
  // on communication stream `lane` (< lanes()). `with_update` (the last bucket, after
  // prepare_fused_update()): the gradient all-reduce also applies the SGD update to the bucket:
  // each rank updates its own chunk and stores the weights into every rank's copy
  // (kernels/training/twoshot_sgd.hpp): the bucket's momentum is then current on the chunk's owner
  // only, and its reduced gradient is in the owner's buffer only (gradient_owners()).
  // Throws std::invalid_argument for another bucket or implementation.
  void launch(std::size_t bucket, int phase, int lane, bool with_update = false);
  // Where the reduced gradient is when it is not on every rank nor on rank 0: under sharded, each
  // bucket's chunk r is on rank r only (update_range); after a twoshot all-reduce with its
  // update, each chunk of the last bucket is on its owner only. Empty otherwise.
  struct OwnedRange {
    std::uint64_t begin;  // element in the flat buffers
    std::uint64_t count;
    int owner;
  };
  std::vector<OwnedRange> gradient_owners() const;
  // Enqueues part `part` of bucket `bucket`'s gradient all-reduce on every local rank, on lane
  // `lane` (pipelined() only).
  void launch_part(std::size_t bucket, LaunchPart part, int lane);
  // Once the last launch has completed: every algorithm gives back what prepare() took from
  // other processes (CUDA IPC mappings). Before the replicas' buffers are freed, every rank must
  // then pass a barrier, since another process may map them until it has released too. Calling
  // it again does nothing.
  void release();
  // Throws GpuError when a hand-built algorithm's kernel gave up waiting on a peer (its output
  // is then undefined); nothing to check for NCCL.
  void check_health() const;
  // Makes every hand-built kernel waiting on a peer return (after a failure elsewhere).
  void abort() noexcept;
  // Multiplies gradients in the update: 1 after an average, 1/n when an implementation only sums.
  float gradient_scale() const { return gradient_scale_; }
  // Bytes handed to the gradient collectives per step (nccl-tests algorithm bytes).
  std::uint64_t gradient_bytes() const { return gradient_bytes_; }
  // Sum over all collectives of a step of algorithm bytes * bus factor.
  double bus_bytes() const { return bus_bytes_; }

 private:
  struct Call {
    const AlgorithmEntry* entry = nullptr;  // what the implementation is and can do
    std::unique_ptr<CollectiveAlgorithm> algorithm;
    CaseShape shape;
    std::vector<RankBuffers> buffers;
  };
  // Throw UnsupportedConfig: an implementation lacks a collective the scheme needs; an
  // algorithm refuses its bucket's shape.
  void require_implementations() const;
  void require_supported_shapes();
  // Throws UnsupportedConfig when `implementation` has no `collective` in the registry.
  const AlgorithmEntry& entry_for(const std::string& implementation, const char* collective) const;
  Call make_call(const char* collective, std::size_t bucket, ReduceOp op);
  // Sets the gradient calls' op (avg, or sum for every bucket) and gradient_scale_.
  void choose_gradient_op();
  // The implementation bucket `bucket` runs.
  const std::string& implementation_for(std::size_t bucket) const;
  bool has_last_bucket_algo() const { return !last_bucket_implementation_.empty(); }
  // After prepare(): sets pipelined_ and lanes_ for a pipelined request (see pipelined()).
  void choose_pipelined(bool requested);
  // The ranks on lane 0, where every NCCL collective runs.
  const std::vector<RankContext>& ranks() const { return lane_contexts_.front(); }
  std::vector<Call*> all_calls();

  const ParameterLayout& layout_;
  SyncScheme scheme_;
  DataType type_;
  int nranks_;  // in the communicator, whichever processes drive them
  std::vector<std::vector<RankContext>> lane_contexts_;  // per lane, at least lane 0
  int lanes_ = 1;
  bool pipelined_ = false;
  bool own_tail_lane_ = false;
  std::string implementation_;              // --algo's
  std::string last_bucket_implementation_;  // empty: implementation_ runs the last bucket too
  std::vector<const ModelReplica*> replicas_;
  std::vector<Call> gradient_calls_;  // one per bucket
  std::vector<Call> weight_calls_;    // one per bucket (ps, sharded)
  float gradient_scale_ = 1.0f;
  std::uint64_t gradient_bytes_ = 0;
  double bus_bytes_ = 0;
  bool released_ = false;
  // prepare_fused_update(): the last bucket's all-reduce's fused update, and every rank's weights
  // at the bucket's first element, as each local rank addresses them ([local][rank]).
  FusedUpdate* fused_update_ = nullptr;
  std::vector<std::vector<void*>> fused_weight_tables_;
};

}  // namespace collbench::dp
