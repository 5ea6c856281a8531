// The step schedule's ordering rules: every collective waits for its gradients, every update
// for its collective and for the last reader of the weights, weight collectives for the update,
// the compute stream joins the others, and the variants drop or keep the right operations.
#include "schedule/step_schedule.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace collbench::dp {
void PrintTo(SyncScheme scheme, std::ostream* out) {
  *out << name_of(scheme);
}
namespace {

// build_step_schedule's options by name (C++17 has no designated initializers).
struct With {
  ScheduleOptions options;
  With& lanes(int comm_lanes) {
    options.comm_lanes = comm_lanes;
    return *this;
  }
  With& pipelined(bool on = true) {
    options.pipelined = on;
    return *this;
  }
  With& own_tail_lane() {
    options.own_tail_lane = true;
    return *this;
  }
  With& lockstep(int every) {
    options.lockstep_every = every;
    return *this;
  }
  With& fused_last_update() {
    options.fused_last_update = true;
    return *this;
  }
  operator ScheduleOptions() const { return options; }
};

// Replays the schedule's events per stream: which events each stream has waited for (directly or
// through the streams it waited on) at each operation.
struct Replay {
  std::map<StreamRole, std::set<std::string>>
      done;  // "what" already ordered before this stream's next op
  std::map<int, std::set<std::string>> event_state;
  std::vector<std::pair<StepOp, std::set<std::string>>> ops;  // each op with what precedes it
};

std::string what(const StepOp& op) {
  switch (op.kind) {
    case StepOpKind::forward:
      return "forward " + std::to_string(op.layer);
    case StepOpKind::loss:
      return "loss";
    case StepOpKind::weight_gradient:
      return "wgrad " + std::to_string(op.layer);
    case StepOpKind::input_gradient:
      return "dgrad " + std::to_string(op.layer);
    case StepOpKind::collective:
      return "coll " + std::to_string(op.bucket) + "/" + std::to_string(op.phase);
    case StepOpKind::update:
      return "update " + std::to_string(op.bucket);
    case StepOpKind::collective_part:
      return "part " + std::to_string(op.bucket) + "/" + std::string(name_of(op.part));
    default:
      return "";
  }
}

Replay replay(const StepSchedule& schedule) {
  Replay r;
  for (const StepOp& op : schedule.ops) {
    auto& mine = r.done[op.stream];
    if (op.kind == StepOpKind::record) {
      r.event_state[op.event] = mine;
    } else if (op.kind == StepOpKind::wait) {
      EXPECT_TRUE(r.event_state.count(op.event))
          << "wait for an event never recorded: " << op.event;
      mine.insert(r.event_state[op.event].begin(), r.event_state[op.event].end());
    } else if (!what(op).empty()) {
      r.ops.push_back({op, mine});
      mine.insert(what(op));
    }
  }
  return r;
}

int count_kind(const StepSchedule& s, StepOpKind kind) {
  int n = 0;
  for (const StepOp& op : s.ops) n += op.kind == kind;
  return n;
}

// What must precede bucket `k`'s collective: the weight gradient of each of its layers.
std::vector<std::string> gradients_of(const ParameterLayout& layout, std::size_t k) {
  const Bucket& bucket = layout.buckets()[k];
  std::vector<std::string> needed;
  for (int layer = bucket.lowest_layer; layer <= bucket.highest_layer; ++layer)
    needed.push_back("wgrad " + std::to_string(layer));
  return needed;
}

void expect_ordering_rules(const ParameterLayout& layout, SyncScheme scheme,
                           const StepSchedule& schedule, int lanes = 1) {
  const Replay r = replay(schedule);
  const bool two_phase = weight_collective_name(scheme) != nullptr;
  std::vector<std::string> collective_order;
  for (const auto& [op, before] : r.ops) {
    if (op.kind == StepOpKind::collective) {
      EXPECT_EQ(op.stream, lanes == 2 && op.bucket % 2 == 1 ? StreamRole::comm2 : StreamRole::comm);
      collective_order.push_back(what(op));
      const Bucket& bucket = layout.buckets()[op.bucket];
      const std::vector<std::string> gradients = gradients_of(layout, op.bucket);
      EXPECT_FALSE(gradients.empty()) << what(op);
      for (const std::string& gradient : gradients) {
        EXPECT_TRUE(before.count(gradient)) << what(op) << " before " << gradient;
      }
      if (op.phase == 1) {
        EXPECT_TRUE(before.count("update " + std::to_string(op.bucket))) << what(op);
      }
      if (op.phase == 1 && bucket.lowest_layer > 0) {
        EXPECT_TRUE(before.count("dgrad " + std::to_string(bucket.lowest_layer)))
            << what(op) << " overwrites weights in use";
      }
    }
    if (op.kind == StepOpKind::update) {
      EXPECT_EQ(op.stream, StreamRole::optimizer);
      const Bucket& bucket = layout.buckets()[op.bucket];
      EXPECT_TRUE(before.count("coll " + std::to_string(op.bucket) + "/0"))
          << what(op) << " before its reduction";
      for (int layer = bucket.lowest_layer; layer <= bucket.highest_layer; ++layer) {
        if (layer > 0) {
          EXPECT_TRUE(before.count("dgrad " + std::to_string(layer)))
              << what(op) << " while weights in use";
        }
      }
    }
    if (op.kind == StepOpKind::forward || op.kind == StepOpKind::weight_gradient ||
        op.kind == StepOpKind::input_gradient || op.kind == StepOpKind::loss) {
      EXPECT_EQ(op.stream, StreamRole::compute);
    }
  }
  // Collectives in bucket order, gradients before weights per bucket: the same on every rank.
  std::vector<std::string> expected;
  for (std::size_t k = 0; k < layout.buckets().size(); ++k) {
    expected.push_back("coll " + std::to_string(k) + "/0");
    if (two_phase) expected.push_back("coll " + std::to_string(k) + "/1");
  }
  EXPECT_EQ(collective_order, expected);
  EXPECT_EQ(count_kind(schedule, StepOpKind::update), static_cast<int>(layout.buckets().size()));
  // The step ends with the compute stream having seen every operation of the step.
  std::set<std::string> all;
  for (const auto& [op, before] : r.ops) all.insert(what(op));
  EXPECT_EQ(r.done.at(StreamRole::compute), all);
  EXPECT_EQ(count_kind(schedule, StepOpKind::range_push),
            count_kind(schedule, StepOpKind::range_pop));
}

class EveryScheme : public ::testing::TestWithParam<SyncScheme> {};

TEST_P(EveryScheme, FullStepKeepsTheOrderingRules) {
  const SyncScheme scheme = GetParam();
  const ParameterLayout layout(4, 64, 2, uses_buckets(scheme) ? 12000 : 0, 4);
  ASSERT_GT(layout.buckets().size(), uses_buckets(scheme) ? 2u : 0u);
  expect_ordering_rules(layout, scheme,
                        build_step_schedule(layout, scheme, StepVariant::full, true));
  // Two lanes: odd buckets on the second communication stream, the same rules otherwise, and
  // the step still ends after both lanes.
  expect_ordering_rules(
      layout, scheme, build_step_schedule(layout, scheme, StepVariant::full, true, With().lanes(2)),
      2);
}

TEST(StepSchedule, TwoLanesAlternateBucketsAndJoinBeforeTheStepEnds) {
  const ParameterLayout layout(4, 64, 2, 9000, 2);  // one layer per bucket
  for (StepVariant variant : {StepVariant::full, StepVariant::comm_only}) {
    const StepSchedule schedule =
        build_step_schedule(layout, SyncScheme::overlap, variant, true, With().lanes(2));
    std::map<int, StreamRole> stream_of_bucket;
    for (const StepOp& op : schedule.ops) {
      if (op.kind == StepOpKind::collective) stream_of_bucket[op.bucket] = op.stream;
    }
    ASSERT_EQ(stream_of_bucket.size(), 4u);
    EXPECT_EQ(stream_of_bucket[0], StreamRole::comm);
    EXPECT_EQ(stream_of_bucket[1], StreamRole::comm2);
    EXPECT_EQ(stream_of_bucket[2], StreamRole::comm);
    EXPECT_EQ(stream_of_bucket[3], StreamRole::comm2);
    const Replay r = replay(schedule);
    EXPECT_EQ(r.done.at(StreamRole::compute).size(), r.ops.size());  // joined back
  }
  // One rank, or one lane: no second stream at all.
  for (const StepSchedule& one :
       {build_step_schedule(layout, SyncScheme::overlap, StepVariant::full, false, With().lanes(2)),
        build_step_schedule(layout, SyncScheme::overlap, StepVariant::full, true,
                            With().lanes(1))}) {
    for (const StepOp& op : one.ops) EXPECT_NE(op.stream, StreamRole::comm2);
  }
}

// Three lanes: bucket b on lane b % 3, and the step waits for every lane.
TEST(StepSchedule, ThreeLanesTakeBucketsInTurn) {
  const ParameterLayout layout(6, 64, 2, 9000, 2);  // one layer per bucket
  const StepSchedule schedule =
      build_step_schedule(layout, SyncScheme::overlap, StepVariant::full, true, With().lanes(3));
  std::map<int, StreamRole> stream_of_bucket;
  for (const StepOp& op : schedule.ops) {
    if (op.kind == StepOpKind::collective) stream_of_bucket[op.bucket] = op.stream;
  }
  ASSERT_EQ(stream_of_bucket.size(), 6u);
  for (int bucket = 0; bucket < 6; ++bucket) {
    EXPECT_EQ(stream_of_bucket[bucket], lane_stream(bucket % 3)) << bucket;
    EXPECT_EQ(lane_of(lane_stream(bucket % 3)), bucket % 3);
  }
  const Replay r = replay(schedule);
  EXPECT_EQ(r.done.at(StreamRole::compute).size(), r.ops.size());  // joined back
  EXPECT_EQ(lane_of(StreamRole::optimizer), -1);
}

// On a lane of its own (after the alternating lanes), the last bucket of another implementation
// runs whole, as soon as its gradients exist: in the lanes schedule and beside pipelined parts
// (whose last bucket the step completes before it), in the full step and the communication-only
// pass; the updates keep bucket order.
TEST(StepSchedule, LastBucketOnALaneOfItsOwn) {
  const ParameterLayout layout(6, 64, 2, 9000, 2);  // one layer per bucket
  const int last = 5;
  for (bool pipelined : {false, true}) {
    for (StepVariant variant : {StepVariant::full, StepVariant::comm_only}) {
      const std::string where = std::string(pipelined ? "pipelined" : "lanes") +
                                (variant == StepVariant::full ? " full" : " comm-only");
      const StepSchedule schedule =
          build_step_schedule(layout, SyncScheme::overlap, variant, true,
                              With().lanes(4).pipelined(pipelined).own_tail_lane());
      const StreamRole own = lane_stream(pipelined ? kPipelinedLanes : 4);
      const Replay r = replay(schedule);
      std::vector<int> on_own_lane;
      std::set<int> in_parts;
      for (const auto& [op, before] : r.ops) {
        if (op.kind == StepOpKind::collective_part) in_parts.insert(op.bucket);
        if (op.kind != StepOpKind::collective) continue;
        EXPECT_EQ(op.stream == own, op.bucket == last) << what(op) << " " << where;
        if (!pipelined && op.bucket < last) {
          EXPECT_EQ(op.stream, lane_stream(op.bucket % 4)) << what(op) << " " << where;
        }
        if (op.stream == own) on_own_lane.push_back(op.bucket);
        if (variant == StepVariant::full) {
          for (const std::string& gradient : gradients_of(layout, op.bucket))
            EXPECT_TRUE(before.count(gradient)) << what(op) << " before " << gradient;
        }
      }
      EXPECT_EQ(on_own_lane, std::vector<int>{last}) << where;
      EXPECT_EQ(static_cast<int>(in_parts.size()), pipelined ? last : 0) << where;
      if (pipelined) {
        EXPECT_EQ(count_kind(schedule, StepOpKind::collective_part), 4 * last) << where;
      }
      if (variant == StepVariant::full) {
        EXPECT_EQ(count_kind(schedule, StepOpKind::update), 6) << where;
        // One optimizer stream, updates in bucket order: the last pipelined bucket's, ready
        // first, never waits there behind the own lane's collective.
        std::vector<int> updates;
        for (const auto& [op, before] : r.ops) {
          if (op.kind == StepOpKind::update) updates.push_back(op.bucket);
        }
        EXPECT_EQ(updates, (std::vector<int>{0, 1, 2, 3, 4, 5})) << where;
      }
      EXPECT_EQ(r.done.at(StreamRole::compute).size(), r.ops.size()) << where;  // joined back
    }
  }
}

// The last bucket's update fused into its collective: the full step has that collective (on the
// own lane) marked with_update, after the last bucket's gradients and the input-gradient GEMM of
// its lowest layer, and no update op for it; every other bucket keeps its update, and the
// compute-only and comm-only steps are as without the option.
TEST(StepSchedule, FusedLastUpdateRunsInsideTheLastCollective) {
  const ParameterLayout layout(4, 64, 2, 9000, 2);  // one layer per bucket: bucket 3 is layer 0
  const ParameterLayout two_layers(4, 64, 2, 20000, 2);  // the last bucket holds layers 0 and 1
  for (const ParameterLayout* l : {&layout, &two_layers}) {
    const int buckets = static_cast<int>(l->buckets().size());
    for (bool pipelined : {false, true}) {
      const With fused = With().lanes(2).pipelined(pipelined).own_tail_lane().fused_last_update();
      const With plain = With().lanes(2).pipelined(pipelined).own_tail_lane();
      const std::string where = pipelined ? "pipelined" : "lanes";
      const StepSchedule full =
          build_step_schedule(*l, SyncScheme::overlap, StepVariant::full, true, fused);
      const Replay r = replay(full);
      int fused_collectives = 0;
      std::vector<int> updates;
      for (const auto& [op, before] : r.ops) {
        if (op.kind == StepOpKind::update) updates.push_back(op.bucket);
        if (op.kind != StepOpKind::collective) continue;
        EXPECT_EQ(op.with_update, op.bucket == buckets - 1) << what(op) << " " << where;
        if (!op.with_update) continue;
        ++fused_collectives;
        const Bucket& bucket = l->buckets()[op.bucket];
        for (const std::string& gradient : gradients_of(*l, op.bucket))
          EXPECT_TRUE(before.count(gradient)) << what(op) << " before " << gradient;
        for (int layer = std::max(1, bucket.lowest_layer); layer <= bucket.highest_layer; ++layer)
          EXPECT_TRUE(before.count("dgrad " + std::to_string(layer))) << what(op) << " " << where;
      }
      EXPECT_EQ(fused_collectives, 1) << where;
      std::vector<int> expected_updates;
      for (int k = 0; k + 1 < buckets; ++k) expected_updates.push_back(k);
      EXPECT_EQ(updates, expected_updates) << where;
      EXPECT_EQ(r.done.at(StreamRole::compute).size(), r.ops.size()) << where;  // joined back
      for (StepVariant variant : {StepVariant::compute_only, StepVariant::comm_only}) {
        const StepSchedule with =
            build_step_schedule(*l, SyncScheme::overlap, variant, true, fused);
        const StepSchedule without =
            build_step_schedule(*l, SyncScheme::overlap, variant, true, plain);
        ASSERT_EQ(with.ops.size(), without.ops.size()) << where;
        for (std::size_t i = 0; i < with.ops.size(); ++i) {
          EXPECT_EQ(what(with.ops[i]), what(without.ops[i])) << where;
          EXPECT_FALSE(with.ops[i].with_update) << where;
        }
      }
    }
  }
  // Without a lane of its own there is no fusing: the schedule is the plain one.
  const StepSchedule shared = build_step_schedule(layout, SyncScheme::overlap, StepVariant::full,
                                                  true, With().lanes(2).fused_last_update());
  EXPECT_EQ(count_kind(shared, StepOpKind::update), 4);
}

// Lockstep: a barrier on the compute stream at the start of every (or every Nth) backward layer
// (before its weight gradient, after the previous layer's input gradient), in the full step only;
// the compute-only step and one rank have none.
TEST(StepSchedule, LockstepBarrierOpensEachBackwardLayer) {
  const ParameterLayout layout(4, 64, 2, 9000, 2);
  for (bool pipelined : {false, true}) {
    const StepSchedule full =
        build_step_schedule(layout, SyncScheme::overlap, StepVariant::full, true,
                            With().lanes(2).pipelined(pipelined).lockstep(1));
    EXPECT_EQ(count_kind(full, StepOpKind::lockstep), 4);
    std::vector<std::string> compute_order;
    for (const StepOp& op : full.ops) {
      if (op.kind == StepOpKind::lockstep) {
        EXPECT_EQ(op.stream, StreamRole::compute);
        compute_order.push_back("barrier");
      } else if (op.kind == StepOpKind::weight_gradient || op.kind == StepOpKind::input_gradient) {
        compute_order.push_back(what(op));
      }
    }
    EXPECT_EQ(compute_order, (std::vector<std::string>{"barrier", "wgrad 3", "dgrad 3", "barrier",
                                                       "wgrad 2", "dgrad 2", "barrier", "wgrad 1",
                                                       "dgrad 1", "barrier", "wgrad 0"}));
    const StepSchedule plain = build_step_schedule(layout, SyncScheme::overlap, StepVariant::full,
                                                   true, With().lanes(2).pipelined(pipelined));
    EXPECT_EQ(full.ops.size(), plain.ops.size() + 4);
    // Every second layer: before layers 3 and 1.
    const StepSchedule every2 =
        build_step_schedule(layout, SyncScheme::overlap, StepVariant::full, true,
                            With().lanes(2).pipelined(pipelined).lockstep(2));
    std::vector<int> barrier_before;
    for (std::size_t i = 0; i + 1 < every2.ops.size(); ++i) {
      if (every2.ops[i].kind == StepOpKind::lockstep)
        barrier_before.push_back(every2.ops[i + 1].layer);
    }
    EXPECT_EQ(barrier_before, (std::vector<int>{3, 1}));
  }
  for (StepVariant variant : {StepVariant::compute_only, StepVariant::comm_only}) {
    EXPECT_EQ(count_kind(build_step_schedule(layout, SyncScheme::overlap, variant, true,
                                             With().lanes(2).lockstep(1)),
                         StepOpKind::lockstep),
              0);
  }
  EXPECT_EQ(count_kind(build_step_schedule(layout, SyncScheme::overlap, StepVariant::full, false,
                                           With().lanes(2).lockstep(1)),
                       StepOpKind::lockstep),
            0);
}

// Pipelined: every bucket's four parts once each, on their lanes; send and reduce after the
// bucket's gradients, gather and finish after its reduce, the update after its finish and the
// last reader of its weights; the copy lane sends bucket k before it gathers bucket k-1.
TEST(StepSchedule, PipelinedPartsKeepTheirOrder) {
  for (double cap : {9000.0, 0.0}) {  // one layer per bucket (overlap); one bucket (sync)
    const SyncScheme scheme = cap > 0 ? SyncScheme::overlap : SyncScheme::sync;
    const ParameterLayout layout(4, 64, 2, static_cast<std::uint64_t>(cap), 2);
    const int buckets = static_cast<int>(layout.buckets().size());
    ASSERT_EQ(buckets, cap > 0 ? 4 : 1);
    const StepSchedule schedule =
        build_step_schedule(layout, scheme, StepVariant::full, true, With().lanes(2).pipelined());
    EXPECT_EQ(count_kind(schedule, StepOpKind::collective), 0);
    EXPECT_EQ(count_kind(schedule, StepOpKind::collective_part), 4 * buckets);
    const Replay r = replay(schedule);
    std::vector<std::string> copy_lane;
    for (const auto& [op, before] : r.ops) {
      const std::string bucket = std::to_string(op.bucket);
      if (op.kind == StepOpKind::collective_part) {
        const StreamRole expected[] = {StreamRole::comm, StreamRole::comm2, StreamRole::comm,
                                       StreamRole::comm3};
        EXPECT_EQ(op.stream, expected[static_cast<int>(op.part)]) << what(op);
        if (op.stream == StreamRole::comm) copy_lane.push_back(what(op));
        if (op.part == LaunchPart::send || op.part == LaunchPart::reduce) {
          for (const std::string& gradient : gradients_of(layout, op.bucket))
            EXPECT_TRUE(before.count(gradient)) << what(op) << " before " << gradient;
        } else {
          EXPECT_TRUE(before.count("part " + bucket + "/reduce")) << what(op);
        }
      }
      if (op.kind == StepOpKind::update) {
        EXPECT_TRUE(before.count("part " + bucket + "/finish")) << what(op);
        const int layer = layout.buckets()[op.bucket].lowest_layer;
        if (layer > 0) {
          EXPECT_TRUE(before.count("dgrad " + std::to_string(layer))) << what(op);
        }
      }
    }
    std::vector<std::string> expected_copy_lane = {"part 0/send"};
    for (int k = 1; k < buckets; ++k) {
      expected_copy_lane.push_back("part " + std::to_string(k) + "/send");
      expected_copy_lane.push_back("part " + std::to_string(k - 1) + "/gather");
    }
    expected_copy_lane.push_back("part " + std::to_string(buckets - 1) + "/gather");
    EXPECT_EQ(copy_lane, expected_copy_lane);
    EXPECT_EQ(r.done.at(StreamRole::compute).size(), r.ops.size());  // joined back
  }
}

// Pipelined communication-only pass: the same parts in the same copy-lane order; ps and sharded
// (no all-reduce) and one rank ignore the request.
TEST(StepSchedule, PipelinedAppliesToAllReduceSchemesWithPeers) {
  const ParameterLayout layout(4, 64, 2, 9000, 2);
  const StepSchedule comm_only = build_step_schedule(
      layout, SyncScheme::overlap, StepVariant::comm_only, true, With().lanes(1).pipelined());
  EXPECT_EQ(count_kind(comm_only, StepOpKind::collective_part), 16);
  EXPECT_EQ(count_kind(comm_only, StepOpKind::collective), 0);
  std::vector<std::string> copy_lane;
  for (const StepOp& op : comm_only.ops) {
    if (op.kind == StepOpKind::collective_part && op.stream == StreamRole::comm)
      copy_lane.push_back(what(op));
  }
  EXPECT_EQ(copy_lane, (std::vector<std::string>{"part 0/send", "part 1/send", "part 0/gather",
                                                 "part 2/send", "part 1/gather", "part 3/send",
                                                 "part 2/gather", "part 3/gather"}));
  const Replay r = replay(comm_only);
  EXPECT_EQ(r.done.at(StreamRole::compute).size(), r.ops.size());
  for (SyncScheme scheme : {SyncScheme::ps, SyncScheme::sharded}) {
    const StepSchedule s =
        build_step_schedule(layout, scheme, StepVariant::full, true, With().lanes(1).pipelined());
    EXPECT_EQ(count_kind(s, StepOpKind::collective_part), 0) << name_of(scheme);
    EXPECT_GT(count_kind(s, StepOpKind::collective), 0) << name_of(scheme);
  }
  const StepSchedule one_rank = build_step_schedule(layout, SyncScheme::overlap, StepVariant::full,
                                                    false, With().lanes(1).pipelined());
  EXPECT_EQ(count_kind(one_rank, StepOpKind::collective_part), 0);
}

TEST_P(EveryScheme, ComputeOnlyHasNoCollectivesAndCommOnlyOnlyCollectives) {
  const SyncScheme scheme = GetParam();
  const ParameterLayout layout(3, 64, 4, uses_buckets(scheme) ? 20000 : 0, 2);
  const StepSchedule compute = build_step_schedule(layout, scheme, StepVariant::compute_only, true);
  EXPECT_EQ(count_kind(compute, StepOpKind::collective), 0);
  EXPECT_EQ(count_kind(compute, StepOpKind::update), static_cast<int>(layout.buckets().size()));
  EXPECT_EQ(count_kind(compute, StepOpKind::weight_gradient), 3);
  EXPECT_EQ(count_kind(compute, StepOpKind::input_gradient), 2);  // layer 0 needs no input gradient
  for (const auto& [op, before] : replay(compute).ops) {
    if (op.kind == StepOpKind::update) {
      EXPECT_TRUE(
          before.count("wgrad " + std::to_string(layout.buckets()[op.bucket].lowest_layer)));
    }
  }
  const StepSchedule comm = build_step_schedule(layout, scheme, StepVariant::comm_only, true);
  const int per_bucket = weight_collective_name(scheme) ? 2 : 1;
  EXPECT_EQ(count_kind(comm, StepOpKind::collective),
            per_bucket * static_cast<int>(layout.buckets().size()));
  EXPECT_EQ(count_kind(comm, StepOpKind::forward) + count_kind(comm, StepOpKind::update), 0);
  const Replay r = replay(comm);
  EXPECT_EQ(r.done.at(StreamRole::compute).size(), r.ops.size());  // joined back
}

TEST_P(EveryScheme, OneRankHasNoCollectives) {
  const ParameterLayout layout(3, 64, 4, 20000, 1);
  const StepSchedule full = build_step_schedule(layout, GetParam(), StepVariant::full, false);
  EXPECT_EQ(count_kind(full, StepOpKind::collective), 0);
  EXPECT_EQ(count_kind(full, StepOpKind::update), static_cast<int>(layout.buckets().size()));
}

INSTANTIATE_TEST_SUITE_P(Schemes, EveryScheme,
                         ::testing::Values(SyncScheme::sync, SyncScheme::overlap, SyncScheme::ps,
                                           SyncScheme::sharded),
                         [](const auto& info) { return std::string(name_of(info.param)); });

TEST(StepSchedule, OverlapStartsEarlyBucketsBeforeTheLastLayersBackward) {
  const ParameterLayout layout(4, 64, 2, 9000, 2);  // one layer per bucket
  ASSERT_EQ(layout.buckets().size(), 4u);
  const StepSchedule schedule =
      build_step_schedule(layout, SyncScheme::overlap, StepVariant::full, true);
  // In enqueue order, bucket 0's all-reduce comes before layer 0's weight gradient.
  int first_collective = -1;
  int last_wgrad = -1;
  for (std::size_t i = 0; i < schedule.ops.size(); ++i) {
    const StepOp& op = schedule.ops[i];
    if (op.kind == StepOpKind::collective && first_collective < 0)
      first_collective = static_cast<int>(i);
    if (op.kind == StepOpKind::weight_gradient && op.layer == 0) last_wgrad = static_cast<int>(i);
  }
  EXPECT_LT(first_collective, last_wgrad);
  // And the ranges are named as the trace shows them.
  std::set<std::string> labels;
  for (const StepOp& op : schedule.ops) {
    if (op.kind == StepOpKind::range_push) labels.insert(op.label);
  }
  for (const char* label : {"step", "forward", "backward layer 3", "backward layer 0",
                            "allreduce bucket 0", "allreduce bucket 3", "optimizer bucket 2"}) {
    EXPECT_TRUE(labels.count(label)) << label;
  }
}

TEST(StepSchedule, CollectiveNamesPerScheme) {
  EXPECT_STREQ(gradient_collective_name(SyncScheme::overlap), "all_reduce");
  EXPECT_STREQ(gradient_collective_name(SyncScheme::ps), "reduce");
  EXPECT_STREQ(weight_collective_name(SyncScheme::ps), "broadcast");
  EXPECT_STREQ(gradient_collective_name(SyncScheme::sharded), "reduce_scatter");
  EXPECT_STREQ(weight_collective_name(SyncScheme::sharded), "all_gather");
  EXPECT_EQ(weight_collective_name(SyncScheme::sync), nullptr);
}

}  // namespace
}  // namespace collbench::dp
