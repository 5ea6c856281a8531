// The step schedule's ordering rules: every collective waits for its gradients, every update
// for its collective and for the last reader of the weights, weight collectives for the update,
// the compute stream joins the others, and the variants drop or keep the right operations.
#include "step_schedule.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "mixed_algorithm.hpp"

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
  With& deferral(Deferral deferral, int defer_first = 0) {
    options.deferral = deferral;
    options.defer_first = defer_first;
    return *this;
  }
  With& last_buckets(int count, bool own_lane) {
    options.last_buckets_on_one_lane = count;
    options.own_tail_lane = own_lane;
    return *this;
  }
  With& gemm_gated() {
    options.gemm_gated = true;
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
      return "wgrad " + std::to_string(op.layer) +
             (op.piece < 0 ? "" : "/" + std::to_string(op.piece));
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

// What must precede bucket `k`'s collective: the weight gradient of each of its layers, or, for a
// layer whose GEMM the schedule cut, the piece that completes the bucket's rows.
std::vector<std::string> gradients_of(const ParameterLayout& layout, const StepSchedule& schedule,
                                      std::size_t k) {
  std::set<int> cut;
  for (const StepOp& op : schedule.ops) {
    if (op.kind == StepOpKind::weight_gradient && op.piece >= 0) cut.insert(op.layer);
  }
  const Bucket& bucket = layout.buckets()[k];
  std::vector<std::string> needed;
  for (int layer = bucket.lowest_layer; layer <= bucket.highest_layer; ++layer) {
    if (!cut.count(layer)) {
      needed.push_back("wgrad " + std::to_string(layer));
      continue;
    }
    const std::vector<WeightPiece> pieces = layout.weight_pieces(layer);
    for (std::size_t p = 0; p < pieces.size(); ++p) {
      if (pieces[p].bucket == k)
        needed.push_back("wgrad " + std::to_string(layer) + "/" + std::to_string(p));
    }
  }
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
      const std::vector<std::string> gradients = gradients_of(layout, schedule, op.bucket);
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
  expect_ordering_rules(
      layout, scheme,
      build_step_schedule(layout, scheme, StepVariant::full, true, WgradSplit::none));
  // Two lanes: odd buckets on the second communication stream, the same rules otherwise, and
  // the step still ends after both lanes.
  expect_ordering_rules(layout, scheme,
                        build_step_schedule(layout, scheme, StepVariant::full, true,
                                            WgradSplit::last, With().lanes(2)),
                        2);
}

TEST(StepSchedule, TwoLanesAlternateBucketsAndJoinBeforeTheStepEnds) {
  const ParameterLayout layout(4, 64, 2, 9000, 2);  // one layer per bucket
  for (StepVariant variant : {StepVariant::full, StepVariant::comm_only}) {
    const StepSchedule schedule = build_step_schedule(layout, SyncScheme::overlap, variant, true,
                                                      WgradSplit::none, With().lanes(2));
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
       {build_step_schedule(layout, SyncScheme::overlap, StepVariant::full, false, WgradSplit::none,
                            With().lanes(2)),
        build_step_schedule(layout, SyncScheme::overlap, StepVariant::full, true, WgradSplit::none,
                            With().lanes(1))}) {
    for (const StepOp& op : one.ops) EXPECT_NE(op.stream, StreamRole::comm2);
  }
}

// Three lanes: bucket b on lane b % 3, and the step waits for every lane.
TEST(StepSchedule, ThreeLanesTakeBucketsInTurn) {
  const ParameterLayout layout(6, 64, 2, 9000, 2);  // one layer per bucket
  const StepSchedule schedule = build_step_schedule(layout, SyncScheme::overlap, StepVariant::full,
                                                    true, WgradSplit::none, With().lanes(3));
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

// The last buckets of another implementation share the last bucket's lane, in bucket order, so
// they run one after another; the others keep lane b % lanes. In the full step and the
// communication-only pass alike, and more last buckets than buckets put every bucket there.
TEST(StepSchedule, LastBucketsShareTheLastBucketsLane) {
  const ParameterLayout layout(6, 64, 2, 9000, 2);  // one layer per bucket
  for (StepVariant variant : {StepVariant::full, StepVariant::comm_only}) {
    for (int last : {1, 3, 9}) {
      const StepSchedule schedule =
          build_step_schedule(layout, SyncScheme::overlap, variant, true, WgradSplit::none,
                              With().lanes(4).last_buckets(last, false));
      std::map<int, StreamRole> stream_of_bucket;
      std::vector<int> order_on_last_lane;
      for (const StepOp& op : schedule.ops) {
        if (op.kind != StepOpKind::collective) continue;
        stream_of_bucket[op.bucket] = op.stream;
        if (op.stream == lane_stream(5 % 4)) order_on_last_lane.push_back(op.bucket);
      }
      ASSERT_EQ(stream_of_bucket.size(), 6u);
      std::vector<int> expected_on_last_lane;
      for (int bucket = 0; bucket < 6; ++bucket) {
        const bool one_of_last = bucket >= 6 - last;
        const int lane = one_of_last ? 5 % 4 : bucket % 4;
        EXPECT_EQ(stream_of_bucket[bucket], lane_stream(lane)) << last << " " << bucket;
        if (lane == 5 % 4) expected_on_last_lane.push_back(bucket);
      }
      EXPECT_EQ(order_on_last_lane, expected_on_last_lane) << last;
      const Replay r = replay(schedule);
      EXPECT_EQ(r.done.at(StreamRole::compute).size(), r.ops.size());  // joined back
    }
  }
}

// On a lane of their own (after the alternating lanes), the last buckets of another
// implementation run whole, in bucket order, as soon as their gradients exist: in the lanes
// schedule and beside pipelined parts (whose last bucket the step completes before them), in the
// full step and the communication-only pass; the updates keep bucket order.
TEST(StepSchedule, LastBucketsOnALaneOfTheirOwn) {
  const ParameterLayout layout(6, 64, 2, 9000, 2);  // one layer per bucket
  for (bool pipelined : {false, true}) {
    for (StepVariant variant : {StepVariant::full, StepVariant::comm_only}) {
      for (int last : {1, 2}) {
        const std::string where = std::string(pipelined ? "pipelined" : "lanes") + " last " +
                                  std::to_string(last) +
                                  (variant == StepVariant::full ? " full" : " comm-only");
        const StepSchedule schedule =
            build_step_schedule(layout, SyncScheme::overlap, variant, true, WgradSplit::none,
                                With().lanes(4).pipelined(pipelined).last_buckets(last, true));
        const StreamRole own = lane_stream(pipelined ? kPipelinedLanes : 4);
        const Replay r = replay(schedule);
        std::vector<int> on_own_lane;
        std::set<int> in_parts;
        for (const auto& [op, before] : r.ops) {
          if (op.kind == StepOpKind::collective_part) in_parts.insert(op.bucket);
          if (op.kind != StepOpKind::collective) continue;
          EXPECT_EQ(op.stream == own, op.bucket >= 6 - last) << what(op) << " " << where;
          if (!pipelined && op.bucket < 6 - last) {
            EXPECT_EQ(op.stream, lane_stream(op.bucket % 4)) << what(op) << " " << where;
          }
          if (op.stream == own) on_own_lane.push_back(op.bucket);
          if (variant == StepVariant::full) {
            for (const std::string& gradient : gradients_of(layout, schedule, op.bucket))
              EXPECT_TRUE(before.count(gradient)) << what(op) << " before " << gradient;
          }
        }
        std::vector<int> expected;
        for (int bucket = 6 - last; bucket < 6; ++bucket) expected.push_back(bucket);
        EXPECT_EQ(on_own_lane, expected) << where;
        EXPECT_EQ(static_cast<int>(in_parts.size()), pipelined ? 6 - last : 0) << where;
        if (pipelined) {
          EXPECT_EQ(count_kind(schedule, StepOpKind::collective_part), 4 * (6 - last)) << where;
        }
        if (variant == StepVariant::full) {
          EXPECT_EQ(count_kind(schedule, StepOpKind::update), 6) << where;
          // One optimizer stream, updates in bucket order: the last pipelined bucket's, ready
          // first, never waits there behind the own lane's collectives.
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
}

// gemm_gated: the copy lane keeps the pipelined order (bucket k's send, then k-1's gather), and
// in the full step k-1's gather also waits for the input-gradient GEMM of k's layer (and for
// nothing later); the communication-only pass, without GEMMs, is the pipelined one.
TEST(StepSchedule, GemmGatedGathersWaitForTheNextInputGradient) {
  const ParameterLayout layout(4, 64, 2, 9000, 2);  // one layer per bucket: bucket k is layer 3-k
  for (StepVariant variant : {StepVariant::full, StepVariant::comm_only}) {
    const StepSchedule pipelined = build_step_schedule(
        layout, SyncScheme::overlap, variant, true, WgradSplit::none, With().lanes(1).pipelined());
    const StepSchedule gated =
        build_step_schedule(layout, SyncScheme::overlap, variant, true, WgradSplit::none,
                            With().lanes(1).pipelined().gemm_gated());
    auto copy_lane_of = [](const StepSchedule& schedule) {
      std::vector<std::string> copies;
      for (const StepOp& op : schedule.ops) {
        if (op.kind == StepOpKind::collective_part && op.stream == StreamRole::comm)
          copies.push_back(what(op));
      }
      return copies;
    };
    EXPECT_EQ(copy_lane_of(gated), copy_lane_of(pipelined));
    const Replay r = replay(gated);
    for (const auto& [op, before] : r.ops) {
      if (op.kind != StepOpKind::collective_part || op.part != LaunchPart::gather) continue;
      EXPECT_TRUE(before.count("part " + std::to_string(op.bucket) + "/reduce")) << what(op);
      if (variant == StepVariant::comm_only) continue;
      const int next_layer = layout.buckets()[op.bucket].lowest_layer - 1;  // bucket k+1's
      if (next_layer > 0) {
        EXPECT_TRUE(before.count("dgrad " + std::to_string(next_layer))) << what(op);
      }
      if (next_layer > 1) {
        EXPECT_FALSE(before.count("wgrad " + std::to_string(next_layer - 1))) << what(op);
      }
    }
    if (variant == StepVariant::comm_only) {
      EXPECT_EQ(gated.ops.size(), pipelined.ops.size());
    } else {
      // One more wait per gather that follows another bucket's send.
      EXPECT_EQ(gated.ops.size(), pipelined.ops.size() + 3);
    }
    EXPECT_EQ(r.done.at(StreamRole::compute).size(), r.ops.size());
  }
  // The deferred schedule keeps the pipelined order.
  const StepSchedule deferred =
      build_step_schedule(layout, SyncScheme::overlap, StepVariant::full, true, WgradSplit::none,
                          With().lanes(1).pipelined().deferral(Deferral::steady, 2));
  const StepSchedule asked =
      build_step_schedule(layout, SyncScheme::overlap, StepVariant::full, true, WgradSplit::none,
                          With().lanes(1).pipelined().deferral(Deferral::steady, 2).gemm_gated());
  EXPECT_EQ(asked.ops.size(), deferred.ops.size());
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
      const With fused =
          With().lanes(2).pipelined(pipelined).last_buckets(1, true).fused_last_update();
      const With plain = With().lanes(2).pipelined(pipelined).last_buckets(1, true);
      const std::string where = pipelined ? "pipelined" : "lanes";
      const StepSchedule full = build_step_schedule(*l, SyncScheme::overlap, StepVariant::full,
                                                    true, WgradSplit::none, fused);
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
        for (const std::string& gradient : gradients_of(*l, full, op.bucket))
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
            build_step_schedule(*l, SyncScheme::overlap, variant, true, WgradSplit::none, fused);
        const StepSchedule without =
            build_step_schedule(*l, SyncScheme::overlap, variant, true, WgradSplit::none, plain);
        ASSERT_EQ(with.ops.size(), without.ops.size()) << where;
        for (std::size_t i = 0; i < with.ops.size(); ++i) {
          EXPECT_EQ(what(with.ops[i]), what(without.ops[i])) << where;
          EXPECT_FALSE(with.ops[i].with_update) << where;
        }
      }
    }
  }
  // Without a lane of its own there is no fusing: the schedule is the plain one.
  const StepSchedule shared =
      build_step_schedule(layout, SyncScheme::overlap, StepVariant::full, true, WgradSplit::none,
                          With().lanes(2).last_buckets(1, false).fused_last_update());
  EXPECT_EQ(count_kind(shared, StepOpKind::update), 4);
}

// Lockstep: a barrier on the compute stream at the start of every (or every Nth) backward layer
// (before its weight gradient, after the previous layer's input gradient), in the full step only;
// the compute-only step and one rank have none.
TEST(StepSchedule, LockstepBarrierOpensEachBackwardLayer) {
  const ParameterLayout layout(4, 64, 2, 9000, 2);
  for (bool pipelined : {false, true}) {
    const StepSchedule full =
        build_step_schedule(layout, SyncScheme::overlap, StepVariant::full, true, WgradSplit::none,
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
    const StepSchedule plain =
        build_step_schedule(layout, SyncScheme::overlap, StepVariant::full, true, WgradSplit::none,
                            With().lanes(2).pipelined(pipelined));
    EXPECT_EQ(full.ops.size(), plain.ops.size() + 4);
    // Every second layer: before layers 3 and 1.
    const StepSchedule every2 =
        build_step_schedule(layout, SyncScheme::overlap, StepVariant::full, true, WgradSplit::none,
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
                                             WgradSplit::none, With().lanes(2).lockstep(1)),
                         StepOpKind::lockstep),
              0);
  }
  EXPECT_EQ(count_kind(build_step_schedule(layout, SyncScheme::overlap, StepVariant::full, false,
                                           WgradSplit::none, With().lanes(2).lockstep(1)),
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
    const StepSchedule schedule = build_step_schedule(
        layout, scheme, StepVariant::full, true, WgradSplit::none, With().lanes(2).pipelined());
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
          for (const std::string& gradient : gradients_of(layout, schedule, op.bucket))
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

// Deferred: the step sends and reduces every deferred bucket (all, or the first `defer_first`:
// the highest layers) after its gradients; their gathers, finishes and updates come first in the
// next step (lowest layers first, each finish after the rank's own gather), and each forward waits
// for the updates of every deferred bucket holding its layer. The other buckets complete within
// their step as pipelined. First, steady steps and the tail together run each bucket's parts in
// the protocol's order.
TEST(StepSchedule, DeferredMovesGathersAndUpdatesIntoTheNextStep) {
  for (double cap : {9000.0, 20000.0}) {  // one layer per bucket; two layers per bucket
    const ParameterLayout layout(4, 64, 2, static_cast<std::uint64_t>(cap), 2);
    const int buckets = static_cast<int>(layout.buckets().size());
    ASSERT_EQ(buckets, cap < 10000 ? 4 : 2);
    for (int defer_first : {0, 1, 3, 9}) {
      const int deferred = defer_first == 0 ? buckets : std::min(defer_first, buckets);
      const std::string where =
          "cap " + std::to_string(cap) + " defer_first " + std::to_string(defer_first);
      auto build = [&](Deferral deferral) {
        return build_step_schedule(layout, SyncScheme::overlap, StepVariant::full, true,
                                   WgradSplit::none,
                                   With().lanes(1).pipelined().deferral(deferral, defer_first));
      };
      std::map<int, std::vector<std::string>> parts_of_bucket;  // over first, steady x2, tail
      for (Deferral deferral :
           {Deferral::first, Deferral::steady, Deferral::steady, Deferral::tail}) {
        const StepSchedule schedule = build(deferral);
        const bool has_tail = deferral != Deferral::first;
        const bool has_step = deferral != Deferral::tail;
        EXPECT_EQ(count_kind(schedule, StepOpKind::collective_part),
                  (has_tail ? 2 : 0) * deferred +
                      (has_step ? 2 * deferred + 4 * (buckets - deferred) : 0))
            << where;
        EXPECT_EQ(count_kind(schedule, StepOpKind::update),
                  (has_tail ? deferred : 0) + (has_step ? buckets - deferred : 0))
            << where;
        EXPECT_EQ(count_kind(schedule, StepOpKind::forward), has_step ? 4 : 0);
        const Replay r = replay(schedule);
        bool forward_started = false;
        std::vector<std::string> tail_copies;
        for (const auto& [op, before] : r.ops) {
          const std::string bucket = std::to_string(op.bucket);
          const bool is_deferred = op.bucket >= 0 && op.bucket < deferred;
          if (op.kind == StepOpKind::forward) {
            forward_started = true;
            for (int k = 0; k < deferred; ++k) {
              if (has_tail && layout.buckets()[k].lowest_layer <= op.layer) {
                EXPECT_TRUE(before.count("update " + std::to_string(k))) << what(op) << where;
              }
            }
          }
          if (op.kind == StepOpKind::collective_part) {
            parts_of_bucket[op.bucket].push_back(std::string(name_of(op.part)));
            const bool tail_part = op.part == LaunchPart::gather || op.part == LaunchPart::finish;
            if (is_deferred) {
              EXPECT_EQ(tail_part, !forward_started) << what(op) << " in the wrong half" << where;
              if (op.part == LaunchPart::gather) tail_copies.push_back(what(op));
            } else {
              EXPECT_TRUE(forward_started) << what(op) << " of a bucket not deferred" << where;
            }
            if (is_deferred && op.part == LaunchPart::finish) {
              EXPECT_TRUE(before.count("part " + bucket + "/gather")) << what(op) << where;
            }
            if (!tail_part) {
              for (const std::string& gradient : gradients_of(layout, schedule, op.bucket))
                EXPECT_TRUE(before.count(gradient)) << what(op) << " before " << gradient << where;
            }
          }
          if (op.kind == StepOpKind::update) {
            EXPECT_EQ(forward_started, !is_deferred) << what(op) << where;
            EXPECT_TRUE(before.count("part " + bucket + "/finish")) << what(op) << where;
          }
        }
        if (has_tail) {
          std::vector<std::string> lowest_first;
          for (int k = deferred - 1; k >= 0; --k)
            lowest_first.push_back("part " + std::to_string(k) + "/gather");
          EXPECT_EQ(tail_copies, lowest_first) << where;
        }
        EXPECT_EQ(r.done.at(StreamRole::compute).size(), r.ops.size());  // joined back
      }
      for (int k = 0; k < buckets; ++k) {
        std::vector<std::string> cycle;
        for (int step = 0; step < 3; ++step)
          cycle.insert(cycle.end(), {"send", "reduce", "gather", "finish"});
        EXPECT_EQ(parts_of_bucket[k], cycle) << "bucket " << k << where;
      }
    }
  }
  // Only the full step of a pipelined all-reduce defers.
  const ParameterLayout layout(4, 64, 2, 9000, 2);
  for (bool pipelined : {false, true}) {
    for (StepVariant variant : {StepVariant::full, StepVariant::comm_only}) {
      if (pipelined && variant == StepVariant::full) continue;
      const StepSchedule plain =
          build_step_schedule(layout, SyncScheme::overlap, variant, true, WgradSplit::none,
                              With().lanes(1).pipelined(pipelined));
      const StepSchedule asked =
          build_step_schedule(layout, SyncScheme::overlap, variant, true, WgradSplit::none,
                              With().lanes(1).pipelined(pipelined).deferral(Deferral::steady));
      EXPECT_EQ(asked.ops.size(), plain.ops.size());
    }
  }
}

// Pipelined communication-only pass: the same parts in the same copy-lane order; ps and sharded
// (no all-reduce) and one rank ignore the request.
TEST(StepSchedule, PipelinedAppliesToAllReduceSchemesWithPeers) {
  const ParameterLayout layout(4, 64, 2, 9000, 2);
  const StepSchedule comm_only =
      build_step_schedule(layout, SyncScheme::overlap, StepVariant::comm_only, true,
                          WgradSplit::none, With().lanes(1).pipelined());
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
    const StepSchedule s = build_step_schedule(layout, scheme, StepVariant::full, true,
                                               WgradSplit::none, With().lanes(1).pipelined());
    EXPECT_EQ(count_kind(s, StepOpKind::collective_part), 0) << name_of(scheme);
    EXPECT_GT(count_kind(s, StepOpKind::collective), 0) << name_of(scheme);
  }
  const StepSchedule one_rank =
      build_step_schedule(layout, SyncScheme::overlap, StepVariant::full, false, WgradSplit::none,
                          With().lanes(1).pipelined());
  EXPECT_EQ(count_kind(one_rank, StepOpKind::collective_part), 0);
}

// A mixed pair with two lanes: each lane carries exactly one implementation's collectives (both
// phases), so an implementation's instances stay serialized on its own stream; with one lane
// every collective shares the first.
TEST(StepSchedule, MixedPairGivesEachImplementationItsOwnLane) {
  const std::vector<std::string> pair = {"copy_engine", "ring"};
  const ParameterLayout layout(4, 64, 2, 3000, 2);
  ASSERT_GT(layout.buckets().size(), 4u);
  for (bool second_lane : {true, false}) {
    const int lanes = lane_plan({true, false}, second_lane ? 2 : 1);
    for (SyncScheme scheme : {SyncScheme::overlap, SyncScheme::sharded}) {
      for (StepVariant variant : {StepVariant::full, StepVariant::comm_only}) {
        const StepSchedule schedule = build_step_schedule(layout, scheme, variant, true,
                                                          WgradSplit::none, With().lanes(lanes));
        std::map<std::string, std::set<StreamRole>> streams_of;
        for (const StepOp& op : schedule.ops) {
          if (op.kind == StepOpKind::collective)
            streams_of[implementation_of_bucket(pair, op.bucket)].insert(op.stream);
        }
        const std::set<StreamRole> first = {StreamRole::comm};
        const std::set<StreamRole> second = {second_lane ? StreamRole::comm2 : StreamRole::comm};
        EXPECT_EQ(streams_of["copy_engine"], first) << name_of(scheme);
        EXPECT_EQ(streams_of["ring"], second) << name_of(scheme);
      }
    }
  }
}

// Layers of 8.3 KB under a 3000-byte cap: four slices each, so every cut GEMM has four pieces.
TEST(StepSchedule, CutWeightGradientsKeepTheOrderingRules) {
  const ParameterLayout layout(3, 64, 2, 3000, 2);
  const int pieces = static_cast<int>(layout.weight_pieces(0).size());
  ASSERT_EQ(pieces, 4);
  const std::string last_piece = "wgrad 0/" + std::to_string(pieces - 1);
  for (SyncScheme scheme : {SyncScheme::overlap, SyncScheme::ps, SyncScheme::sharded}) {
    for (WgradSplit split : {WgradSplit::last, WgradSplit::all}) {
      SCOPED_TRACE(std::string(name_of(scheme)) + ", " + std::string(name_of(split)));
      const StepSchedule schedule =
          build_step_schedule(layout, scheme, StepVariant::full, true, split);
      expect_ordering_rules(layout, scheme, schedule);
      std::map<int, int> pieces_per_layer;
      for (const StepOp& op : schedule.ops) {
        if (op.kind == StepOpKind::weight_gradient) ++pieces_per_layer[op.layer];
      }
      for (int layer = 0; layer < 3; ++layer) {
        EXPECT_EQ(pieces_per_layer[layer], split_covers(split, layer) ? pieces : 1) << layer;
      }
      // The first slice of layer 0 is all-reduced before its last piece is computed.
      const Replay r = replay(schedule);
      for (const auto& [op, before] : r.ops) {
        if (op.kind == StepOpKind::collective && op.phase == 0 &&
            static_cast<std::size_t>(op.bucket) == layout.weight_pieces(0).front().bucket) {
          EXPECT_FALSE(before.count(last_piece)) << "waited for the whole layer";
        }
      }
      // Compute-only is the same computation, cut the same way.
      const StepSchedule compute =
          build_step_schedule(layout, scheme, StepVariant::compute_only, true, split);
      EXPECT_EQ(count_kind(compute, StepOpKind::weight_gradient),
                count_kind(schedule, StepOpKind::weight_gradient));
    }
    // One rank never cuts: nothing would start early.
    const StepSchedule alone =
        build_step_schedule(layout, scheme, StepVariant::full, false, WgradSplit::all);
    EXPECT_EQ(count_kind(alone, StepOpKind::weight_gradient), 3);
  }
}

TEST_P(EveryScheme, ComputeOnlyHasNoCollectivesAndCommOnlyOnlyCollectives) {
  const SyncScheme scheme = GetParam();
  const ParameterLayout layout(3, 64, 4, uses_buckets(scheme) ? 20000 : 0, 2);
  const StepSchedule compute =
      build_step_schedule(layout, scheme, StepVariant::compute_only, true, WgradSplit::none);
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
  const StepSchedule comm =
      build_step_schedule(layout, scheme, StepVariant::comm_only, true, WgradSplit::none);
  const int per_bucket = weight_collective_name(scheme) ? 2 : 1;
  EXPECT_EQ(count_kind(comm, StepOpKind::collective),
            per_bucket * static_cast<int>(layout.buckets().size()));
  EXPECT_EQ(count_kind(comm, StepOpKind::forward) + count_kind(comm, StepOpKind::update), 0);
  const Replay r = replay(comm);
  EXPECT_EQ(r.done.at(StreamRole::compute).size(), r.ops.size());  // joined back
}

TEST_P(EveryScheme, OneRankHasNoCollectives) {
  const ParameterLayout layout(3, 64, 4, 20000, 1);
  const StepSchedule full =
      build_step_schedule(layout, GetParam(), StepVariant::full, false, WgradSplit::last);
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
      build_step_schedule(layout, SyncScheme::overlap, StepVariant::full, true, WgradSplit::last);
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
