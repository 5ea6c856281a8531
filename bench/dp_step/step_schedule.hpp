// One training step as data: the ordered list of operations every rank enqueues, each on one of
// three streams, with the events that order them. The executor walks this list for all ranks
// together; tests check its ordering rules without a GPU.
//
// Streams per rank: compute (forward, loss, backward), communication (all collectives, in the
// same order on every rank, one NCCL stream as NCCL requires), optimizer (per-bucket updates, so
// an update overlaps the next bucket's all-reduce). Rules the schedule keeps:
//   - a bucket's first collective waits for the weight gradient of its lowest layer;
//   - its update waits for that collective and for the lowest layer's input-gradient GEMM (the
//     last reader of the weights in this step);
//   - ps/sharded: the weight collective (broadcast / all-gather) waits for the update;
//   - the step ends with the compute stream waiting for the other two, so the next step's
//     forward sees every update.
#pragma once

#include <string>
#include <vector>

#include "dp_config.hpp"
#include "parameter_layout.hpp"

namespace collbench::dp {

enum class StepVariant {
  full,          // the training step
  compute_only,  // the same step without any collective
  comm_only,     // only the collectives of the step, back to back
};

enum class StreamRole { compute, comm, optimizer };

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
  update,           // optimizer on the rank's part of a bucket
};

struct StepOp {
  StepOpKind kind;
  StreamRole stream = StreamRole::compute;
  int layer = -1;
  int bucket = -1;
  int event = -1;
  int phase = 0;
  std::string label;  // NVTX ranges only
};

// Event numbering, the same on every rank.
struct StepEvents {
  int layers;
  int buckets;
  int gradient_ready(int layer) const { return layer; }
  int weights_free(int layer) const { return layers + layer; }
  int collective_done(int bucket) const { return 2 * layers + bucket; }
  int updated(int bucket) const { return 2 * layers + buckets + bucket; }
  int fork() const { return 2 * layers + 2 * buckets; }
  int comm_done() const { return fork() + 1; }
  int optimizer_done() const { return fork() + 2; }
  int count() const { return fork() + 3; }
};

struct StepSchedule {
  StepEvents events;
  std::vector<StepOp> ops;
};

// Names of a scheme's two collectives per bucket: gradients then (ps, sharded) weights.
const char* gradient_collective_name(SyncScheme scheme);  // all_reduce, reduce, reduce_scatter
const char* weight_collective_name(SyncScheme scheme);    // nullptr, broadcast, all_gather

// `communicate` false for one rank: then no collective appears even in the full step.
StepSchedule build_step_schedule(const ParameterLayout& layout, SyncScheme scheme,
                                 StepVariant variant, bool communicate);

}  // namespace collbench::dp
