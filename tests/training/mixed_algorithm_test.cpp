// A mixed --algo pair "A+B": its split, which implementation each bucket runs, the lane count, the
// one reduction op of every bucket and the knobs a row reports.
#include "mixed_algorithm.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

namespace collbench::dp {
namespace {

using Names = std::vector<std::string>;

TEST(MixedAlgorithm, SplitsOnPlus) {
  EXPECT_EQ(implementations_of("nccl"), Names{"nccl"});
  EXPECT_EQ(implementations_of("copy_engine+ring"), (Names{"copy_engine", "ring"}));
  EXPECT_EQ(implementations_of("a+b+c"), (Names{"a", "b", "c"}));
  EXPECT_EQ(implementations_of("ring+"), (Names{"ring", ""}));
  EXPECT_EQ(implementations_of("+ring"), (Names{"", "ring"}));
}

TEST(MixedAlgorithm, EvenBucketsRunTheFirstImplementationOddOnesTheSecond) {
  const Names pair = {"copy_engine", "ring"};
  EXPECT_EQ(implementation_of_bucket(pair, 0), "copy_engine");  // the last layer's, first sent
  EXPECT_EQ(implementation_of_bucket(pair, 1), "ring");
  EXPECT_EQ(implementation_of_bucket(pair, 2), "copy_engine");
  EXPECT_EQ(implementation_of_bucket(pair, 7), "ring");
  const Names plain = {"nccl"};
  for (std::size_t bucket : {0, 1, 2, 5})
    EXPECT_EQ(implementation_of_bucket(plain, bucket), "nccl");
}

TEST(MixedAlgorithm, TwoLanesOnlyBesideAnImplementationThatRunsBesideAnything) {
  // A pair with copy_engine: one lane per implementation, each serializing its own buckets.
  EXPECT_EQ(lane_plan({true, false}, 2), 2);
  EXPECT_EQ(lane_plan({false, true}, 2), 2);
  EXPECT_EQ(lane_plan({true, false}, 4), 2);  // never more: a lane per implementation
  // Two SM-spinning implementations (ring+nccl) stay on one stream.
  EXPECT_EQ(lane_plan({false, false}, 2), 1);
  // --comm-lanes 1: everything on one stream, implementations alternating serially.
  EXPECT_EQ(lane_plan({true, false}, 1), 1);
  // One implementation: two lanes only when its instances may run concurrently (copy_engine).
  EXPECT_EQ(lane_plan({true}, 2), 2);
  EXPECT_EQ(lane_plan({true}, 3), 3);
  EXPECT_EQ(lane_plan({false}, 2), 1);
  EXPECT_EQ(lane_plan({true}, 1), 1);
}

TEST(MixedAlgorithm, EveryBucketGetsTheOpBothImplementationsRun) {
  const ReduceOpSupport both{true, true};
  const ReduceOpSupport sum_only{false, true};
  const ReduceOpSupport avg_only{true, false};
  const ReduceOpSupport neither{false, false};
  // One implementation: as before, avg when it can, else sum.
  EXPECT_EQ(common_gradient_op({both}), ReduceOp::avg);
  EXPECT_EQ(common_gradient_op({sum_only}), ReduceOp::sum);
  EXPECT_EQ(common_gradient_op({neither}), std::nullopt);
  // A pair: one that only sums makes both sum (the update then divides by the rank count).
  EXPECT_EQ(common_gradient_op({both, both}), ReduceOp::avg);
  EXPECT_EQ(common_gradient_op({both, sum_only}), ReduceOp::sum);
  EXPECT_EQ(common_gradient_op({sum_only, both}), ReduceOp::sum);
  EXPECT_EQ(common_gradient_op({avg_only, sum_only}), std::nullopt);
  EXPECT_EQ(common_gradient_op({both, neither}), std::nullopt);
}

// Every knob of both implementations, each once, read from the environment like the registry's.
TEST(MixedAlgorithm, KnobsJoinBothImplementationsOnce) {
  setenv("COLLBENCH_RING_CTAS", "16", 1);
  setenv("COLLBENCH_PEER_LAUNCH", "direct", 1);
  const std::string copy_engine_ring = implementation_knobs("copy_engine+ring");
  const std::string ring_copy_engine = implementation_knobs("ring+copy_engine");
  const std::string ring_oneshot = implementation_knobs("ring+oneshot");
  const std::string ring = implementation_knobs("ring");
  const std::string nccl_copy_engine = implementation_knobs("nccl+copy_engine");
  unsetenv("COLLBENCH_RING_CTAS");
  unsetenv("COLLBENCH_PEER_LAUNCH");
  EXPECT_EQ(ring, "ring_ctas=16;peer_launch=direct");
  EXPECT_EQ(copy_engine_ring, ring);
  EXPECT_EQ(ring_copy_engine, ring);
  EXPECT_EQ(ring_oneshot, ring);  // oneshot's peer_launch=direct is ring's too
  EXPECT_EQ(nccl_copy_engine, "");
  setenv("COLLBENCH_CE_ROUND_BYTES", "1048576", 1);
  setenv("COLLBENCH_RING_CTAS", "16", 1);
  EXPECT_EQ(implementation_knobs("copy_engine+ring"), "ce_round_bytes=1048576;ring_ctas=16");
  EXPECT_EQ(implementation_knobs("ring+copy_engine"), "ring_ctas=16;ce_round_bytes=1048576");
  unsetenv("COLLBENCH_CE_ROUND_BYTES");
  unsetenv("COLLBENCH_RING_CTAS");
  EXPECT_EQ(implementation_knobs("copy_engine+ring"), "");
}

}  // namespace
}  // namespace collbench::dp
