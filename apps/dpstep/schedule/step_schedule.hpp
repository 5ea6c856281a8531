// One training step as data: the ordered list of operations every rank enqueues, each on one of
// three streams, with the events that order them. The executor walks this list for all ranks
// together; tests check its ordering rules without a GPU.
//
// Streams per rank: compute (forward, loss, backward), communication (all collectives, in the
// same order on every rank, one NCCL stream as NCCL requires; with several lanes, for algorithms
// whose instances run concurrently, bucket b goes to communication stream b % lanes so that a
// bucket's transfers overlap the other buckets' reductions and flag waits; pipelined, the parts of
// every bucket's all-reduce (LaunchPart) on three lanes: the copies of all buckets on lane 0,
// bucket k's send before bucket k-1's gather, the reductions on lane 1, the waits for the peers'
// gathers on lane 2), optimizer (per-bucket updates, so an update overlaps the next bucket's
// all-reduce). Rules the schedule keeps:
//   - pipelined: a bucket's send and reduce wait for its gradients, its gather and finish for its
//     reduce, and its update for its finish;
//   - a bucket's first collective waits for the weight gradient of its lowest layer;
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
#include "model/parameter_layout.hpp"

namespace collbench::dp {

enum class StepVariant {
  full,          // the training step
  compute_only,  // the same step without any collective
  comm_only,     // only the collectives of the step, back to back
};

// comm, comm2 ... are the communication lanes buckets alternate over (lane_stream), plus one for
// the last bucket of another implementation (own_tail_lane below).
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
  weight_gradient,  // layer's dW (and db) GEMM
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
  std::string label;                   // NVTX ranges only
  LaunchPart part = LaunchPart::send;  // collective_part only
  bool with_update = false;  // collective only: the bucket's update runs inside it (fused)
};

// Event numbering, the same on every rank.
struct StepEvents {
  int layers;
  int buckets;
  int gradient_ready(int bucket) const { return bucket; }
  int weights_free(int layer) const { return buckets + layer; }
  int collective_done(int bucket) const { return layers + buckets + bucket; }
  int updated(int bucket) const { return layers + 2 * buckets + bucket; }
  int reduced(int bucket) const { return layers + 3 * buckets + bucket; }  // pipelined
  int fork() const { return layers + 4 * buckets; }
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
  // The last bucket goes to a lane of its own after the others (index comm_lanes, or
  // kPipelinedLanes), as a whole collective even when the others are pipelined, so that it starts
  // as soon as its gradients exist (GradientSync::own_tail_lane).
  bool own_tail_lane = false;
  // Full step with collectives only: a lockstep barrier on the compute stream before every this
  // many backward layers, from the first (0: none).
  int lockstep_every = 0;
  // Full step with collectives, the last bucket on a lane of its own (own_tail_lane): its
  // gradient collective also runs its update (StepOp::with_update), after the last reader of the
  // weights, and the optimizer stream runs none for it.
  bool fused_last_update = false;
};

// `communicate` false for one rank: then no collective appears even in the full step.
StepSchedule build_step_schedule(const ParameterLayout& layout, SyncScheme scheme,
                                 StepVariant variant, bool communicate,
                                 ScheduleOptions options = {});

}  // namespace collbench::dp
