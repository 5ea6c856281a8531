// One training step as data: the ordered list of operations every rank enqueues, each on one of
// three streams, with the events that order them. The executor walks this list for all ranks
// together; tests check its ordering rules without a GPU.
//
// Streams per rank: compute (forward, loss, backward), communication (all collectives, in the
// same order on every rank, one NCCL stream as NCCL requires; with several lanes, for algorithms
// whose instances run concurrently, bucket b goes to communication stream b % lanes so that a
// bucket's transfers overlap the other buckets' reductions and flag waits, and for a mixed pair
// each implementation gets a stream of its own: alternate_of; pipelined, the parts of every
// bucket's all-reduce (LaunchPart) on three lanes: the copies of all buckets on lane 0, bucket k's
// send before bucket k-1's gather, the reductions on lane 1, the waits for the peers' gathers on
// lane 2), optimizer
// (per-bucket updates, so an update overlaps the next bucket's all-reduce). Rules the schedule
// keeps:
//   - pipelined: a bucket's send and reduce wait for its gradients, its gather and finish for its
//     reduce, and its update for its finish;
//   - deferred: the deferred buckets' all-reduces (every bucket, or the first few: the highest
//     layers) end after their reduce; the next step gathers, finishes and updates them first
//     (lowest layers first: the order forward needs them), each finish also waiting for the
//     rank's own gather (which reads the gradients backward will overwrite), and each layer's
//     forward waits for the updates of every deferred bucket holding it; the other buckets
//     complete within their step as pipelined;
//   - a bucket's first collective waits for the weight gradient of its lowest layer (for a layer
//     whose GEMM is cut, for the piece holding the bucket's rows);
//   - its update waits for that collective and for the lowest layer's input-gradient GEMM (the
//     last reader of the weights in this step); an update fused into the last bucket's
//     collective makes that collective wait for the GEMM too;
//   - ps/sharded: the weight collective (broadcast / all-gather) waits for the update;
//   - the step ends with the compute stream waiting for the other two, so the next step's
//     forward sees every update.
#pragma once

#include <string>
#include <vector>

#include "core/algorithm.hpp"
#include "dp_config.hpp"
#include "parameter_layout.hpp"

namespace collbench::dp {

enum class StepVariant {
  full,          // the training step
  compute_only,  // the same step without any collective
  comm_only,     // only the collectives of the step, back to back
};

// comm, comm2 ... are the communication lanes buckets alternate over (lane_stream), plus one for
// the last buckets of another implementation (own_tail_lane below).
enum class StreamRole { compute, comm, comm2, comm3, comm4, comm5, optimizer };
constexpr int kMaxCommLanes = 4;  // that buckets alternate over
constexpr int kCommStreams = kMaxCommLanes + 1;
// Lane `lane` (0 .. kCommStreams - 1) as a stream role, and back (-1 for other roles).
StreamRole lane_stream(int lane);
int lane_of(StreamRole role);

enum class StepOpKind {
  range_push,  // NVTX range opens (label)
  range_pop,
  forward,          // layer's GEMM with bias (+ ReLU)
  loss,             // MSE loss and its gradient
  weight_gradient,  // layer's dW (and db) GEMM, or one piece of it (piece >= 0)
  input_gradient,   // layer's dX GEMM (with the previous layer's ReLU gradient)
  record,           // record event on stream
  wait,             // stream waits for event
  collective,       // bucket's gradient collective (phase 0) or weight collective (phase 1)
  collective_part,  // one part of a bucket's gradient all-reduce (pipelined)
  update,           // optimizer on the rank's part of a bucket
  lockstep,         // barrier across the ranks (ComputeLockstep), on the compute stream
};

struct StepOp {
  StepOpKind kind;
  StreamRole stream = StreamRole::compute;
  int layer = -1;
  int bucket = -1;
  int event = -1;
  int phase = 0;
  std::string label;  // NVTX ranges only
  int piece = -1;     // weight_gradient: index into ParameterLayout::weight_pieces, -1 whole
  LaunchPart part = LaunchPart::send;  // collective_part only
  bool with_update = false;  // collective only: the bucket's update runs inside it (fused)
};

// The deferred schedule (CommSchedule::deferred, pipelined parts only) moves each bucket's gather,
// finish and update into the next step, ahead of the forward pass that first needs the bucket's
// weights: a run's steps are `first` (nothing left by a previous step), then `steady` (the
// previous step's tail, then this step), and a closing `tail` (only the tail).
enum class Deferral { none, first, steady, tail };

// Event numbering, the same on every rank.
struct StepEvents {
  int layers;
  int buckets;
  int gradient_ready(int bucket) const { return bucket; }
  int weights_free(int layer) const { return buckets + layer; }
  int collective_done(int bucket) const { return layers + buckets + bucket; }
  int updated(int bucket) const { return layers + 2 * buckets + bucket; }
  int reduced(int bucket) const { return layers + 3 * buckets + bucket; }  // pipelined
  int gathered(int bucket) const { return layers + 4 * buckets + bucket; }  // deferred
  int fork() const { return layers + 5 * buckets; }
  int comm_done(int lane) const { return fork() + 1 + lane; }
  int optimizer_done() const { return fork() + 1 + kCommStreams; }
  int count() const { return optimizer_done() + 1; }
};

struct StepSchedule {
  StepEvents events;
  std::vector<StepOp> ops;
};

// Names of a scheme's two collectives per bucket: gradients then (ps, sharded) weights.
const char* gradient_collective_name(SyncScheme scheme);  // all_reduce, reduce, reduce_scatter
const char* weight_collective_name(SyncScheme scheme);    // nullptr, broadcast, all_gather

constexpr int kPipelinedLanes = 3;

// How the communication of a step is laid out over streams (build_step_schedule).
struct ScheduleOptions {
  // Communication streams the buckets alternate over (1 to kMaxCommLanes); ignored when
  // `pipelined`, which takes kPipelinedLanes.
  int comm_lanes = 1;
  // Each all-reduce in parts (all-reduce schemes only).
  bool pipelined = false;
  // Applies to the full step of a pipelined schedule only (elsewhere it is ignored): which of its
  // shapes to build, with the first `defer_first` buckets deferred (the highest layers; 0 or more
  // than there are: all) and the others completed within the step as pipelined.
  Deferral deferral = Deferral::none;
  int defer_first = 0;
  // The last this many buckets (GradientSync::last_buckets(); 0 is 1) all go to the last bucket's
  // lane, so they run one after another; with `own_tail_lane` (and at least one such bucket) they
  // go instead to a lane of their own after the others (index comm_lanes, or kPipelinedLanes), as
  // whole collectives even when the others are pipelined, so that they start as soon as their
  // gradients exist.
  int last_buckets_on_one_lane = 1;
  bool own_tail_lane = false;
  // Pipelined, not deferred, full step: bucket k-1's gather, which follows bucket k's send on the
  // copy lane, also waits for the input-gradient GEMM of bucket k's lowest layer.
  bool gemm_gated = false;
  // Full step with collectives only: a lockstep barrier on the compute stream before every this
  // many backward layers, from the first (0: none).
  int lockstep_every = 0;
  // Full step with collectives, the last bucket on a lane of its own (own_tail_lane): its
  // gradient collective also runs its update (StepOp::with_update), after the last reader of the
  // weights, and the optimizer stream runs none for it.
  bool fused_last_update = false;
};

// `communicate` false for one rank: then no collective appears even in the full step, and no
// weight-gradient GEMM is cut. With it, the layers `split` covers that span several buckets run
// their weight gradient in pieces (in every variant, so compute-only is the same computation).
StepSchedule build_step_schedule(const ParameterLayout& layout, SyncScheme scheme,
                                 StepVariant variant, bool communicate, WgradSplit split,
                                 ScheduleOptions options = {});

}  // namespace collbench::dp
