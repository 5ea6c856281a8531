// Tests of the collective registry against nccl-tests' definitions (doc/PERFORMANCE.md and its
// GetCollByteCount functions), written out independently here as the oracle.
#include <gtest/gtest.h>

#include <cmath>

#include "core/collective_registry.hpp"
#include "core/errors.hpp"
#include "core/peer_traffic.hpp"
#include "reports/arrival.hpp"

namespace collbench {
namespace {

double expected_bus_factor(std::string_view op, int n) {
  if (op == "all_reduce") return 2.0 * (n - 1) / n;
  if (op == "broadcast" || op == "reduce" || op == "sendrecv") return 1.0;
  return static_cast<double>(n - 1) /
         n;  // all_gather, reduce_scatter, alltoall(v), gather, scatter
}

TEST(Registry, HasEveryNcclCollectiveOnce) {
  std::vector<std::string> names;
  for (const CollectiveSpec& spec : collective_registry()) names.emplace_back(spec.name);
  EXPECT_EQ(names, (std::vector<std::string>{"all_reduce", "all_gather", "reduce_scatter",
                                             "broadcast", "reduce", "alltoall", "gather", "scatter",
                                             "sendrecv", "alltoallv"}));
  EXPECT_THROW(find_collective("allreduce"), UsageError);
}

// The arrival rule's list of ops whose ranks end together names registry ops only, and exactly
// those that are neither rooted nor sendrecv (whose ranks end at different times by design).
TEST(Registry, ArrivalRuleAppliesToOpsThatFinishTogether) {
  for (const CollectiveSpec& spec : collective_registry()) {
    const bool ends_together = !spec.rooted && spec.kind != OpKind::sendrecv;
    EXPECT_EQ(stats::finishes_together(spec.name), ends_together) << spec.name;
  }
  for (std::string_view op :
       {"all_reduce", "all_gather", "reduce_scatter", "alltoall", "alltoallv"}) {
    EXPECT_NO_THROW(find_collective(op)) << op;
  }
}

TEST(Registry, BusFactorsAreNcclTests) {
  for (const CollectiveSpec& spec : collective_registry()) {
    for (int n : {1, 2, 3, 4, 8, 16}) {
      EXPECT_DOUBLE_EQ(spec.bus_factor(n), expected_bus_factor(spec.name, n))
          << spec.name << " n=" << n;
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
        if (spec.takes_traffic) continue;  // alltoallv: AlltoallvBytesAreNcclTests
        const ElementCounts counts = spec.counts(elements, element_bytes, n, nullptr);
        const std::string_view op = spec.name;
        SCOPED_TRACE(std::string(op) + " n=" + std::to_string(n) +
                     " elt=" + std::to_string(element_bytes));
        if (op == "all_reduce" || op == "broadcast" || op == "reduce" || op == "sendrecv") {
          EXPECT_EQ(counts.send, elements);
          EXPECT_EQ(counts.recv, elements);
          EXPECT_EQ(counts.param, elements);
          EXPECT_EQ(spec.algbw_elements(counts, n), elements);
          continue;
        }
        // Blocks per rank: whole 16-byte lines, and algbw counts the n blocks.
        EXPECT_EQ(counts.param, block);
        EXPECT_EQ(spec.algbw_elements(counts, n), block * n);
        if (op == "all_gather" || op == "gather") {
          EXPECT_EQ(counts.send, block);
          EXPECT_EQ(counts.recv, block * n);
        } else if (op == "reduce_scatter" || op == "scatter") {
          EXPECT_EQ(counts.send, block * n);
          EXPECT_EQ(counts.recv, block);
        } else {
          EXPECT_EQ(op, "alltoall");
          EXPECT_EQ(counts.send, block * n);
          EXPECT_EQ(counts.recv, block * n);
        }
      }
    }
  }
}

TEST(Registry, AlgorithmBytesAreNcclTests) {
  // all_gather of 1 MiB total on 4 ranks: algbw counts the whole gathered buffer.
  const CollectiveSpec& all_gather = find_collective("all_gather");
  const ElementCounts gathered = all_gather.counts((1 << 20) / 4, 4, 4, nullptr);
  EXPECT_DOUBLE_EQ(algbw_bytes(all_gather, gathered, DataType::float32, 4), 1 << 20);
  EXPECT_EQ(case_bytes(all_gather, gathered, DataType::float32), 1u << 20);
  const CollectiveSpec& all_reduce = find_collective("all_reduce");
  const ElementCounts whole = all_reduce.counts(1000, 2, 4, nullptr);
  EXPECT_DOUBLE_EQ(algbw_bytes(all_reduce, whole, DataType::half, 4), 2000);
  const CollectiveSpec& sendrecv = find_collective("sendrecv");
  EXPECT_DOUBLE_EQ(algbw_bytes(sendrecv, sendrecv.counts(10, 8, 8, nullptr), DataType::float64, 8),
                   80);
}

// nccl-tests' alltoallv_perf: size and algbw bytes are the busiest rank's max(sent, received),
// count its paramcount (0 with a matrix), busbw factor (n - 1) / n. Numbers worked out by hand
// from AlltoAllvGetCollByteCount, the distance-weighted formula and AlltoAllvGetBw.
struct AlltoallvBytes {
  std::size_t bytes;
  std::size_t count;
};
AlltoallvBytes alltoallv_bytes(const PeerTraffic& traffic, DataType type, int nranks) {
  const CollectiveSpec& spec = find_collective("alltoallv");
  const ElementCounts counts = spec.counts(0, size_of(type), nranks, &traffic);
  const double algbw = algbw_bytes(spec, counts, type, nranks);
  EXPECT_EQ(algbw, static_cast<double>(case_bytes(spec, counts, type)));
  return {case_bytes(spec, counts, type), counts.param};
}

TEST(Registry, AlltoallvBytesAreNcclTests) {
  const CollectiveSpec& spec = find_collective("alltoallv");
  EXPECT_TRUE(spec.takes_traffic);
  EXPECT_EQ(spec.in_place, InPlaceLayout::unsupported);
  EXPECT_DOUBLE_EQ(spec.bus_factor(2), 0.5);
  EXPECT_DOUBLE_EQ(spec.bus_factor(4), 0.75);
  EXPECT_THROW(spec.counts(1024, 4, 2, nullptr), std::logic_error);
  const auto bytes_of = [](double spread, std::size_t requested, int nranks) {
    const auto traffic = spread_traffic(spread, requested, 4, nranks);
    const AlltoallvBytes result = alltoallv_bytes(*traffic, DataType::float32, nranks);
    return std::vector<std::size_t>{result.bytes, result.count};
  };
  using Pair = std::vector<std::size_t>;
  // 2 ranks, 1 MiB of float: paramcount 131072; every spread keeps 1 MiB a rank (spread 1: all
  // of it to the other rank; 0.5: 256 KiB to itself, 768 KiB to the other).
  for (double spread : {0.0, 0.5, 1.0})
    EXPECT_EQ(bytes_of(spread, 1 << 20, 2), (Pair{1 << 20, 131072})) << spread;
  // 4 ranks, 1 MiB: paramcount 65536. Spread 1: B d / 6 rounded down to 16 = 0, 174752,
  // 349520, 524288 (1048560 in all); spread 0.5: 131072, 218448, 305824, 393216 (1048560).
  EXPECT_EQ(bytes_of(0.0, 1 << 20, 4), (Pair{1 << 20, 65536}));
  EXPECT_EQ(bytes_of(0.5, 1 << 20, 4), (Pair{1048560, 65536}));
  EXPECT_EQ(bytes_of(1.0, 1 << 20, 4), (Pair{1048560, 65536}));
  // 4 ranks, 1000 B: paramcount 60 (960 B a rank). Spread 0: 240 each; 0.5: 112 + 192 + 272 + 352.
  EXPECT_EQ(bytes_of(0.0, 1000, 4), (Pair{960, 60}));
  EXPECT_EQ(bytes_of(0.5, 1000, 4), (Pair{928, 60}));
  EXPECT_EQ(bytes_of(1.0, 1000, 4), (Pair{960, 60}));

  // A matrix: rank 0 sends 1 KiB and receives 4 KiB, rank 1 sends 4 KiB + 256 B: the busiest
  // rank's 4352 B, not the mean; count 0 as nccl-tests reports it.
  const TrafficMatrix matrix = parse_traffic_matrix("m.txt", "0 1K\n4K 256\n");
  const auto traffic = matrix_traffic(matrix, "m.txt", 4);
  const AlltoallvBytes from_matrix = alltoallv_bytes(*traffic, DataType::float32, 2);
  EXPECT_EQ(from_matrix.bytes, 4352u);
  EXPECT_EQ(from_matrix.count, 0u);
  const ElementCounts counts = spec.counts(0, 4, 2, traffic.get());
  EXPECT_EQ(counts.send, 1088u);  // rank 1's 4352 B sent
  EXPECT_EQ(counts.recv, 1024u);  // rank 0's 4096 B received
}

TEST(Registry, InPlaceLayoutsMatchNccl) {
  const ElementCounts counts{64, 256, 64};
  EXPECT_EQ(in_place_offsets(find_collective("all_gather"), counts, 3).send,
            192u);  // send = recv + rank*count
  EXPECT_EQ(in_place_offsets(find_collective("all_gather"), counts, 3).recv, 0u);
  EXPECT_EQ(in_place_offsets(find_collective("reduce_scatter"), counts, 2).recv,
            128u);  // recv = send + rank*count
  EXPECT_EQ(in_place_offsets(find_collective("scatter"), counts, 1).recv, 64u);
  EXPECT_EQ(in_place_offsets(find_collective("gather"), counts, 2).send, 128u);
  EXPECT_EQ(in_place_offsets(find_collective("all_reduce"), counts, 2).send, 0u);
  EXPECT_EQ(find_collective("alltoall").in_place, InPlaceLayout::unsupported);
  EXPECT_EQ(find_collective("sendrecv").in_place, InPlaceLayout::unsupported);
  EXPECT_EQ(find_collective("alltoallv").in_place, InPlaceLayout::unsupported);
}

TEST(Registry, ReductionAndRootFlags) {
  for (const CollectiveSpec& spec : collective_registry()) {
    const bool reduces =
        spec.name == "all_reduce" || spec.name == "reduce_scatter" || spec.name == "reduce";
    const bool rooted = spec.name == "broadcast" || spec.name == "reduce" ||
                        spec.name == "gather" || spec.name == "scatter";
    EXPECT_EQ(spec.reduces, reduces) << spec.name;
    EXPECT_EQ(spec.rooted, rooted) << spec.name;
  }
}

}  // namespace
}  // namespace collbench
