// Builds the ordered operation list of one step (rules in step_schedule.hpp).
#include "schedule/step_schedule.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace collbench::dp {
namespace {

class ScheduleBuilder {
 public:
  // `options` as build_step_schedule settled them; `lanes` the alternating lanes they give.
  ScheduleBuilder(const ParameterLayout& layout, SyncScheme scheme, int lanes,
                  const ScheduleOptions& options)
      : layout_(layout), scheme_(scheme), lanes_(lanes) {
    const int buckets = static_cast<int>(layout.buckets().size());
    schedule_.events = StepEvents{layout.layers(), buckets};
    if (options.own_tail_lane) {
      tail_lane_ = lanes;
      first_tail_bucket_ = buckets - 1;
    }
  }

  void push(const std::string& label) {
    add({StepOpKind::range_push, StreamRole::compute, -1, -1, -1, 0, label});
  }
  void pop() { add({StepOpKind::range_pop, StreamRole::compute, -1, -1, -1, 0, {}}); }
  void on(StepOpKind kind, StreamRole stream, int layer = -1, int bucket = -1, int phase = 0) {
    add({kind, stream, layer, bucket, -1, phase, {}});
  }
  void record(StreamRole stream, int event) {
    add({StepOpKind::record, stream, -1, -1, event, 0, {}});
  }
  void wait(StreamRole stream, int event) { add({StepOpKind::wait, stream, -1, -1, event, 0, {}}); }
  // Every communication lane starts after the fork and ends before the compute stream goes on.
  void fork_lanes(int event) {
    for (int lane = 0; lane < streams(); ++lane) wait(lane_stream(lane), event);
  }
  void join_lanes() {
    const StepEvents& ev = schedule_.events;
    for (int lane = 0; lane < streams(); ++lane) {
      record(lane_stream(lane), ev.comm_done(lane));
      wait(StreamRole::compute, ev.comm_done(lane));
    }
  }
  // Bucket b on lane b % lanes; the last bucket on a lane of its own when there is one.
  StreamRole comm_stream_of(int bucket) const {
    if (on_tail_lane(bucket)) return lane_stream(tail_lane_);
    return lane_stream(bucket % lanes_);
  }

  // The bucket's collectives and update, enqueued once its lowest layer's gradients exist; with
  // `fused_update`, the gradient collective runs the update too.
  void sync_bucket(int bucket, bool communicate, bool fused_update = false) {
    const StepEvents& ev = schedule_.events;
    const int layer = layout_.buckets()[bucket].lowest_layer;
    const StreamRole comm = comm_stream_of(bucket);
    if (communicate) {
      wait(comm, ev.gradient_ready(bucket));
      if (fused_update) wait(comm, ev.weights_free(layer));
      push(fmt::format("{} bucket {}{}", label_of(gradient_collective_name(scheme_)), bucket,
                       fused_update ? " with optimizer" : ""));
      StepOp op{StepOpKind::collective, comm, layer, bucket, -1, 0, {}};
      op.with_update = fused_update;
      add(std::move(op));
      pop();
      record(comm, ev.collective_done(bucket));
      if (fused_update) return;  // the collective updated the bucket itself
      wait(StreamRole::optimizer, ev.collective_done(bucket));
    } else {
      wait(StreamRole::optimizer, ev.gradient_ready(bucket));
    }
    update_bucket(bucket);
    if (communicate && weight_collective_name(scheme_) != nullptr) {
      record(StreamRole::optimizer, ev.updated(bucket));
      wait(comm, ev.updated(bucket));
      push(fmt::format("{} bucket {}", label_of(weight_collective_name(scheme_)), bucket));
      on(StepOpKind::collective, comm, layer, bucket, 1);
      pop();
    }
  }

  // The bucket's update, after what the optimizer stream already waits for (its collective, or its
  // gradients) and the last reader of its lowest layer's weights.
  void update_bucket(int bucket) {
    wait(StreamRole::optimizer,
         schedule_.events.weights_free(layout_.buckets()[bucket].lowest_layer));
    enqueue_update(bucket);
  }

  // Pipelined (kPipelinedLanes): which lane carries which parts.
  static constexpr StreamRole kTransfers = StreamRole::comm;
  static constexpr StreamRole kReductions = StreamRole::comm2;
  static constexpr StreamRole kCompletions = StreamRole::comm3;

  // Bucket k's send and reduce, then bucket k-1's gather and finish: on the copy stream, k's send
  // goes before k-1's gather, so the copy engine sends while k-1 is reduced, in the same order on
  // every rank. In the training step (`in_step`) the send and reduce wait for the bucket's
  // gradients and each finished bucket's update follows.
  void pipelined_bucket(int bucket, bool in_step) {
    send_and_reduce(bucket, in_step);
    record(kReductions, schedule_.events.reduced(bucket));
    if (bucket > 0) complete_pipelined(bucket - 1, in_step);
  }
  // The last bucket in parts, which pipelined_bucket leaves to the caller to complete.
  int last_pipelined_to_complete() const { return first_tail_bucket_ - 1; }
  bool on_tail_lane(int bucket) const { return tail_lane_ >= 0 && bucket >= first_tail_bucket_; }
  // Bucket k's gather and finish, after its reduce; the all-reduce is done once finish is. Called
  // by pipelined_bucket for all but the last bucket, which the caller completes.
  void complete_pipelined(int bucket, bool in_step) {
    const StepEvents& ev = schedule_.events;
    wait(kTransfers, ev.reduced(bucket));
    part(LaunchPart::gather, kTransfers, bucket);
    wait(kCompletions, ev.reduced(bucket));
    part(LaunchPart::finish, kCompletions, bucket);
    record(kCompletions, ev.collective_done(bucket));
    if (!in_step) return;
    wait(StreamRole::optimizer, ev.collective_done(bucket));
    update_bucket(bucket);
  }

  StepSchedule take() { return std::move(schedule_); }

 private:
  // "all_reduce" -> "allreduce", as NCCL and the issue name the ranges.
  static std::string label_of(const char* collective) {
    std::string label;
    for (const char* c = collective; *c; ++c) {
      if (*c != '_') label += *c;
    }
    return label;
  }
  void add(StepOp op) { schedule_.ops.push_back(std::move(op)); }
  // The update op itself, after whatever the optimizer stream must wait for.
  void enqueue_update(int bucket) {
    push(fmt::format("optimizer bucket {}", bucket));
    on(StepOpKind::update, StreamRole::optimizer, layout_.buckets()[bucket].lowest_layer, bucket);
    pop();
  }
  // Bucket k's send (copy lane) and reduce (reduction lane), in the step each after its gradients.
  void send_and_reduce(int bucket, bool in_step) {
    const StepEvents& ev = schedule_.events;
    if (in_step) wait(kTransfers, ev.gradient_ready(bucket));
    part(LaunchPart::send, kTransfers, bucket);
    if (in_step) wait(kReductions, ev.gradient_ready(bucket));
    part(LaunchPart::reduce, kReductions, bucket);
  }
  void part(LaunchPart which, StreamRole stream, int bucket) {
    push(fmt::format("{} bucket {} {}", label_of(gradient_collective_name(scheme_)), bucket,
                     name_of(which)));
    StepOp op{StepOpKind::collective_part,
              stream,
              layout_.buckets()[bucket].lowest_layer,
              bucket,
              -1,
              0,
              {}};
    op.part = which;
    add(std::move(op));
    pop();
  }

  int streams() const { return lanes_ + (tail_lane_ >= 0 ? 1 : 0); }

  const ParameterLayout& layout_;
  SyncScheme scheme_;
  int lanes_;
  int tail_lane_ = -1;  // the last bucket's own lane, or -1: it shares the lane of its index
  int first_tail_bucket_ = static_cast<int>(layout_.buckets().size());
  StepSchedule schedule_;
};

void add_comm_only(ScheduleBuilder& b, const ParameterLayout& layout, SyncScheme scheme,
                   const StepEvents& ev, bool pipelined) {
  b.record(StreamRole::compute, ev.fork());
  b.fork_lanes(ev.fork());
  const int buckets = static_cast<int>(layout.buckets().size());
  for (int bucket = 0; bucket < buckets; ++bucket) {
    if (pipelined && !b.on_tail_lane(bucket)) {
      b.pipelined_bucket(bucket, false);
      continue;
    }
    const int layer = layout.buckets()[bucket].lowest_layer;
    b.on(StepOpKind::collective, b.comm_stream_of(bucket), layer, bucket, 0);
    if (weight_collective_name(scheme) != nullptr)
      b.on(StepOpKind::collective, b.comm_stream_of(bucket), layer, bucket, 1);
  }
  if (pipelined && b.last_pipelined_to_complete() >= 0)
    b.complete_pipelined(b.last_pipelined_to_complete(), false);
  b.join_lanes();
}

}  // namespace

const char* gradient_collective_name(SyncScheme scheme) {
  switch (scheme) {
    case SyncScheme::ps:
      return "reduce";
    case SyncScheme::sharded:
      return "reduce_scatter";
    default:
      return "all_reduce";
  }
}

const char* weight_collective_name(SyncScheme scheme) {
  switch (scheme) {
    case SyncScheme::ps:
      return "broadcast";
    case SyncScheme::sharded:
      return "all_gather";
    default:
      return nullptr;
  }
}

StreamRole lane_stream(int lane) {
  constexpr StreamRole kLanes[kCommStreams] = {
      StreamRole::comm, StreamRole::comm2, StreamRole::comm3, StreamRole::comm4, StreamRole::comm5};
  return kLanes[lane];
}

int lane_of(StreamRole role) {
  for (int lane = 0; lane < kCommStreams; ++lane) {
    if (lane_stream(lane) == role) return lane;
  }
  return -1;
}

StepSchedule build_step_schedule(const ParameterLayout& layout, SyncScheme scheme,
                                 StepVariant variant, bool communicate, ScheduleOptions options) {
  // Parts exist for the all-reduce schemes only.
  options.pipelined = options.pipelined && communicate && weight_collective_name(scheme) == nullptr;
  if (!communicate) options.own_tail_lane = false;
  const int lanes = !communicate        ? 1
                    : options.pipelined ? kPipelinedLanes
                                        : std::max(1, std::min(options.comm_lanes, kMaxCommLanes));
  ScheduleBuilder b(layout, scheme, lanes, options);
  const StepEvents ev{layout.layers(), static_cast<int>(layout.buckets().size())};
  b.push(variant == StepVariant::comm_only ? "communication only" : "step");
  if (variant == StepVariant::comm_only) {
    if (communicate) add_comm_only(b, layout, scheme, ev, options.pipelined);
    b.pop();
    return b.take();
  }
  const bool with_collectives = communicate && variant == StepVariant::full;
  const auto& buckets = layout.buckets();
  const int bucket_count = static_cast<int>(buckets.size());
  // The optimizer stream joins from the compute stream, so it never runs ahead of this step.
  b.record(StreamRole::compute, ev.fork());
  b.wait(StreamRole::optimizer, ev.fork());
  if (with_collectives) b.fork_lanes(ev.fork());

  b.push("forward");
  for (int layer = 0; layer < layout.layers(); ++layer)
    b.on(StepOpKind::forward, StreamRole::compute, layer);
  b.on(StepOpKind::loss, StreamRole::compute);
  b.pop();

  // The last pipelined bucket (-1: none here) completes just before the tail lane's bucket is
  // enqueued, or after the loop when it is the last bucket: its update, ready first, then goes
  // first on the optimizer stream instead of waiting there behind the tail's collective and update.
  const int last_pipelined =
      with_collectives && options.pipelined ? b.last_pipelined_to_complete() : -1;
  std::size_t next_bucket = 0;
  for (int layer = layout.layers() - 1; layer >= 0; --layer) {
    b.push(fmt::format("backward layer {}", layer));
    const int backward_index = layout.layers() - 1 - layer;
    if (with_collectives && options.lockstep_every > 0 &&
        backward_index % options.lockstep_every == 0)
      b.on(StepOpKind::lockstep, StreamRole::compute);
    // Weight gradient first: it is what the all-reduce waits for; the input gradient (the
    // critical path to the next layer) follows.
    b.on(StepOpKind::weight_gradient, StreamRole::compute, layer);
    for (std::size_t k = next_bucket; k < buckets.size() && buckets[k].lowest_layer == layer; ++k)
      b.record(StreamRole::compute, ev.gradient_ready(static_cast<int>(k)));
    if (layer > 0) b.on(StepOpKind::input_gradient, StreamRole::compute, layer);
    b.record(StreamRole::compute, ev.weights_free(layer));
    b.pop();
    while (next_bucket < buckets.size() && buckets[next_bucket].lowest_layer == layer) {
      const int bucket = static_cast<int>(next_bucket);
      if (last_pipelined >= 0 && bucket == last_pipelined + 1)
        b.complete_pipelined(last_pipelined, true);
      if (with_collectives && options.pipelined && !b.on_tail_lane(bucket)) {
        b.pipelined_bucket(bucket, true);
      } else {
        const bool fused = with_collectives && options.fused_last_update &&
                           b.on_tail_lane(bucket) && bucket == bucket_count - 1;
        b.sync_bucket(bucket, with_collectives, fused);
      }
      ++next_bucket;
    }
  }
  if (last_pipelined == bucket_count - 1) b.complete_pipelined(last_pipelined, true);
  if (with_collectives) b.join_lanes();
  b.record(StreamRole::optimizer, ev.optimizer_done());
  b.wait(StreamRole::compute, ev.optimizer_done());
  b.pop();
  return b.take();
}

}  // namespace collbench::dp
