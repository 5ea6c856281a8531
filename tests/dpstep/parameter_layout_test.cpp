// Parameter placement, bucket assignment (reverse layer order, caps, split layers, padding) and
// sharding arithmetic.
#include "model/parameter_layout.hpp"

#include <gtest/gtest.h>

#include <set>
#include <tuple>
#include <vector>

namespace collbench::dp {
namespace {

constexpr std::uint64_t kMiB = 1ull << 20;

// Invariants every layout must keep, whatever the sizes.
void expect_consistent(const ParameterLayout& layout) {
  const std::uint64_t unit = kParameterAlignBytes / layout.element_bytes();
  const std::uint64_t bucket_unit = unit * layout.nranks();
  // Buckets tile [0, total) in order, each a whole number of per-rank aligned chunks.
  std::uint64_t next = 0;
  for (const Bucket& b : layout.buckets()) {
    EXPECT_EQ(b.begin, next);
    EXPECT_GT(b.elements, 0u);
    EXPECT_EQ(b.elements % bucket_unit, 0u);
    EXPECT_GE(b.highest_layer, b.lowest_layer);
    next = b.begin + b.elements;
  }
  EXPECT_EQ(next, layout.total_elements());
  // Reverse layer order: a later bucket never holds a higher layer than an earlier one.
  for (std::size_t k = 1; k < layout.buckets().size(); ++k) {
    EXPECT_LE(layout.buckets()[k].highest_layer, layout.buckets()[k - 1].lowest_layer);
  }
  // Parameters are aligned, disjoint, inside the buffer; each layer's weight then its bias.
  std::uint64_t count = 0;
  for (int layer = 0; layer < layout.layers(); ++layer) {
    const Parameter& w = layout.weight(layer);
    const Parameter& b = layout.bias(layer);
    EXPECT_EQ(w.offset % unit, 0u);
    EXPECT_EQ(b.offset % unit, 0u);
    EXPECT_GE(b.offset, w.offset + w.elements());
    EXPECT_LE(b.offset + b.elements(), layout.total_elements());
    if (layer + 1 < layout.layers()) {
      EXPECT_GE(w.offset, layout.bias(layer + 1).offset + layout.bias(layer + 1).elements());
    }
    count += w.elements() + b.elements();
    // Every element of the layer lies in buckets whose lowest layer is this one: its gradient
    // is never sent before the layer's backward produced it.
    for (const Bucket& bucket : layout.buckets()) {
      const bool overlaps =
          bucket.begin < b.offset + b.elements() && w.offset < bucket.begin + bucket.elements;
      if (overlaps) {
        EXPECT_LE(bucket.lowest_layer, layer);
        EXPECT_GE(bucket.highest_layer, layer);
      }
    }
  }
  EXPECT_EQ(count, layout.parameter_count());
}

TEST(ParameterLayout, ZeroCapIsOneBucketOfEverything) {
  const ParameterLayout layout(8, 4096, 2, 0, 4);
  ASSERT_EQ(layout.buckets().size(), 1u);
  EXPECT_EQ(layout.buckets()[0].highest_layer, 7);
  EXPECT_EQ(layout.buckets()[0].lowest_layer, 0);
  EXPECT_EQ(layout.parameter_count(), 8u * (4096u * 4096u + 4096u));
  EXPECT_EQ(layout.total_bytes(), layout.total_elements() * 2);
  expect_consistent(layout);
}

TEST(ParameterLayout, ReverseLayerOrderInTheBuffer) {
  const ParameterLayout layout(3, 64, 4, 0, 1);
  EXPECT_EQ(layout.weight(2).offset, 0u);
  EXPECT_EQ(layout.bias(2).offset, 64u * 64u);
  EXPECT_EQ(layout.weight(1).offset, 64u * 64u + 64u);
  EXPECT_LT(layout.weight(1).offset, layout.weight(0).offset);
  expect_consistent(layout);
}

TEST(ParameterLayout, LargeCapPacksWholeLayers) {
  // bf16 layers of 4096 are 32 MiB + 8 KiB: three fit under 100 MiB.
  const ParameterLayout layout(8, 4096, 2, 100 * kMiB, 4);
  ASSERT_EQ(layout.buckets().size(), 3u);
  EXPECT_EQ(layout.buckets()[0].highest_layer, 7);
  EXPECT_EQ(layout.buckets()[0].lowest_layer, 5);
  EXPECT_EQ(layout.buckets()[1].highest_layer, 4);
  EXPECT_EQ(layout.buckets()[1].lowest_layer, 2);
  EXPECT_EQ(layout.buckets()[2].highest_layer, 1);
  EXPECT_EQ(layout.buckets()[2].lowest_layer, 0);
  for (const Bucket& b : layout.buckets()) EXPECT_LE(b.elements * 2, 100 * kMiB);
  expect_consistent(layout);
}

TEST(ParameterLayout, SmallCapSplitsEachLayerIntoEqualSlices) {
  const ParameterLayout layout(8, 4096, 2, 25 * kMiB, 4);
  ASSERT_EQ(layout.buckets().size(), 16u);  // 32 MiB per layer -> two slices of ~16 MiB
  for (std::size_t k = 0; k < layout.buckets().size(); ++k) {
    const Bucket& b = layout.buckets()[k];
    EXPECT_EQ(b.highest_layer, b.lowest_layer);
    EXPECT_EQ(b.lowest_layer, 7 - static_cast<int>(k / 2));
    EXPECT_LE(b.elements * 2, 25 * kMiB);
    EXPECT_GT(b.elements * 2, 15 * kMiB);
  }
  expect_consistent(layout);
  const ParameterLayout four(8, 4096, 2, 4 * kMiB, 4);
  EXPECT_EQ(four.buckets().size(), 8u * 9u);  // 32.008 MiB / 4 MiB -> 9 slices
  for (const Bucket& b : four.buckets()) EXPECT_LE(b.elements * 2, 4 * kMiB);
  expect_consistent(four);
}

TEST(ParameterLayout, CapBetweenLayerSizesClosesBucketBeforeOverflow) {
  // float layers of 64: 4096 + 64 elements = 16.6 KB; a 40 KB cap takes two layers, not three.
  const ParameterLayout layout(5, 64, 4, 40000, 2);
  ASSERT_EQ(layout.buckets().size(), 3u);
  EXPECT_EQ(layout.buckets()[0].highest_layer, 4);
  EXPECT_EQ(layout.buckets()[0].lowest_layer, 3);
  EXPECT_EQ(layout.buckets()[2].highest_layer, 0);
  EXPECT_EQ(layout.buckets()[2].lowest_layer, 0);
  expect_consistent(layout);
}

TEST(ParameterLayout, PaddingMakesChunksEqualForAnyRankCount) {
  for (int ranks : {1, 2, 3, 4, 7, 8}) {
    for (std::uint64_t cap : {std::uint64_t{0}, std::uint64_t{10000}, 4 * kMiB}) {
      const ParameterLayout layout(3, 200, 2, cap, ranks);
      expect_consistent(layout);
    }
  }
}

TEST(ParameterLayout, ShardsTileEveryBucketAndTheShardBuffer) {
  const ParameterLayout layout(4, 96, 2, 20000, 4);
  std::uint64_t shard_next = 0;
  for (const Bucket& bucket : layout.buckets()) {
    const std::uint64_t chunk = layout.chunk_elements(bucket);
    EXPECT_EQ(chunk * 4, bucket.elements);
    for (int rank = 0; rank < 4; ++rank) {
      EXPECT_EQ(layout.chunk_begin(bucket, rank), bucket.begin + rank * chunk);
      EXPECT_EQ(layout.chunk_begin(bucket, rank) % (kParameterAlignBytes / 2),
                0u);  // aligned for 16-byte access
    }
    EXPECT_EQ(layout.shard_offset(bucket), shard_next);  // chunks back to back in the shard buffer
    shard_next += chunk;
  }
  EXPECT_EQ(shard_next, layout.shard_elements());
  EXPECT_EQ(layout.shard_elements() * 4, layout.total_elements());
}

TEST(ParameterLayout, RejectsNonPositiveSizes) {
  EXPECT_THROW(ParameterLayout(0, 64, 4, 0, 1), std::invalid_argument);
  EXPECT_THROW(ParameterLayout(2, 0, 4, 0, 1), std::invalid_argument);
  EXPECT_THROW(ParameterLayout(2, 64, 4, 0, 0), std::invalid_argument);
}

}  // namespace
}  // namespace collbench::dp
