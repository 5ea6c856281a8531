// Tests of the collective registry against nccl-tests' definitions (doc/PERFORMANCE.md and its
// GetCollByteCount functions), written out independently here as the oracle.
#include <gtest/gtest.h>

#include <cmath>

#include "core/collective_registry.hpp"
#include "core/errors.hpp"

namespace collbench {
namespace {

double expected_bus_factor(std::string_view op, int n) {
  if (op == "all_reduce") return 2.0 * (n - 1) / n;
  if (op == "broadcast" || op == "reduce" || op == "sendrecv") return 1.0;
  return static_cast<double>(n - 1) / n;  // all_gather, reduce_scatter, alltoall, gather, scatter
}

TEST(Registry, HasEveryNcclCollectiveOnce) {
  std::vector<std::string> names;
  for (const CollectiveSpec& spec : collective_registry()) names.emplace_back(spec.name);
  EXPECT_EQ(names, (std::vector<std::string>{"all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce",
                                             "alltoall", "gather", "scatter", "sendrecv"}));
  EXPECT_THROW(find_collective("allreduce"), UsageError);
}

TEST(Registry, BusFactorsAreNcclTests) {
  for (const CollectiveSpec& spec : collective_registry()) {
    for (int n : {1, 2, 3, 4, 8, 16}) {
      EXPECT_DOUBLE_EQ(spec.bus_factor(n), expected_bus_factor(spec.name, n)) << spec.name << " n=" << n;
    }
  }
}

TEST(Registry, ElementCountsFollowNcclTestsRounding) {
  const std::size_t elements = 1000003;  // a prime: nothing divides evenly
  for (int n : {1, 2, 3, 4, 8}) {
    for (std::size_t element_bytes : {1u, 2u, 4u, 8u}) {
      const std::size_t line = 16 / element_bytes;
      const std::size_t block = (elements / n) / line * line;
      for (const CollectiveSpec& spec : collective_registry()) {
        const ElementCounts counts = spec.counts(elements, element_bytes, n);
        const std::string_view op = spec.name;
        SCOPED_TRACE(std::string(op) + " n=" + std::to_string(n) + " elt=" + std::to_string(element_bytes));
        if (op == "all_reduce" || op == "broadcast" || op == "reduce" || op == "sendrecv") {
          EXPECT_EQ(counts.send, elements);
          EXPECT_EQ(counts.recv, elements);
          EXPECT_EQ(counts.param, elements);
        } else if (op == "all_gather" || op == "gather") {
          EXPECT_EQ(counts.param, block);
          EXPECT_EQ(counts.send, block);
          EXPECT_EQ(counts.recv, block * n);
        } else if (op == "reduce_scatter" || op == "scatter") {
          EXPECT_EQ(counts.param, block);
          EXPECT_EQ(counts.send, block * n);
          EXPECT_EQ(counts.recv, block);
        } else {
          EXPECT_EQ(op, "alltoall");
          EXPECT_EQ(counts.param, block);
          EXPECT_EQ(counts.send, block * n);
          EXPECT_EQ(counts.recv, block * n);
        }
        EXPECT_EQ(counts.param % (spec.algbw_rank_multiplier(n) == 1 ? 1 : line), 0u);
      }
    }
  }
}

TEST(Registry, AlgorithmBytesAreNcclTests) {
  // all_gather of 1 MiB total on 4 ranks: algbw counts the whole gathered buffer.
  const CollectiveSpec& all_gather = find_collective("all_gather");
  const ElementCounts gathered = all_gather.counts((1 << 20) / 4, 4, 4);
  EXPECT_DOUBLE_EQ(algbw_bytes(all_gather, gathered, DataType::float32, 4), 1 << 20);
  EXPECT_EQ(case_bytes(all_gather, gathered, DataType::float32), 1u << 20);
  const CollectiveSpec& all_reduce = find_collective("all_reduce");
  const ElementCounts whole = all_reduce.counts(1000, 2, 4);
  EXPECT_DOUBLE_EQ(algbw_bytes(all_reduce, whole, DataType::half, 4), 2000);
  const CollectiveSpec& sendrecv = find_collective("sendrecv");
  EXPECT_DOUBLE_EQ(algbw_bytes(sendrecv, sendrecv.counts(10, 8, 8), DataType::float64, 8), 80);
}

TEST(Registry, InPlaceLayoutsMatchNccl) {
  const ElementCounts counts{64, 256, 64};
  EXPECT_EQ(in_place_offsets(find_collective("all_gather"), counts, 3).send, 192u);  // send = recv + rank*count
  EXPECT_EQ(in_place_offsets(find_collective("all_gather"), counts, 3).recv, 0u);
  EXPECT_EQ(in_place_offsets(find_collective("reduce_scatter"), counts, 2).recv, 128u);  // recv = send + rank*count
  EXPECT_EQ(in_place_offsets(find_collective("scatter"), counts, 1).recv, 64u);
  EXPECT_EQ(in_place_offsets(find_collective("gather"), counts, 2).send, 128u);
  EXPECT_EQ(in_place_offsets(find_collective("all_reduce"), counts, 2).send, 0u);
  EXPECT_EQ(find_collective("alltoall").in_place, InPlaceLayout::unsupported);
  EXPECT_EQ(find_collective("sendrecv").in_place, InPlaceLayout::unsupported);
}

TEST(Registry, ReductionAndRootFlags) {
  for (const CollectiveSpec& spec : collective_registry()) {
    const bool reduces = spec.name == "all_reduce" || spec.name == "reduce_scatter" || spec.name == "reduce";
    const bool rooted = spec.name == "broadcast" || spec.name == "reduce" || spec.name == "gather" || spec.name == "scatter";
    EXPECT_EQ(spec.reduces, reduces) << spec.name;
    EXPECT_EQ(spec.rooted, rooted) << spec.name;
  }
}

}  // namespace
}  // namespace collbench
