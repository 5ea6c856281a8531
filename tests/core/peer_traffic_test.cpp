// Tests of alltoallv's per-peer layout: counts, packed offsets, the check's segment table, and
// nccl-tests' paramcount for generated spreads.
#include "core/peer_traffic.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/errors.hpp"

namespace collbench {
namespace {

using Values = std::vector<std::uint64_t>;

// Sent 0+16+32 = 48, 64+0+0 = 64, 8+24+40 = 72 bytes; received 72, 40, 72.
const TrafficMatrix& three_ranks() {
  static const TrafficMatrix matrix = parse_traffic_matrix("m.txt", "0 16 32\n64 0 0\n8 24 40\n");
  return matrix;
}

TEST(PeerTraffic, CountsAndPackedOffsetsInElements) {
  const PeerTraffic traffic(three_ranks(), 8, 0, "a2av_matrix=m.txt");
  EXPECT_EQ(traffic.ranks(), 3);
  EXPECT_EQ(traffic.count(0, 2), 4u);
  EXPECT_EQ(traffic.count(1, 0), 8u);
  EXPECT_EQ(traffic.count(2, 2), 5u);
  // Rank 2's send buffer: 1 element for rank 0, 3 for rank 1, 5 for itself.
  EXPECT_EQ(
      (Values{traffic.send_offset(2, 0), traffic.send_offset(2, 1), traffic.send_offset(2, 2)}),
      (Values{0, 1, 4}));
  // Rank 0's receive buffer: nothing from itself, 8 from rank 1, then 1 from rank 2.
  EXPECT_EQ(
      (Values{traffic.recv_offset(0, 0), traffic.recv_offset(1, 0), traffic.recv_offset(2, 0)}),
      (Values{0, 0, 8}));
  EXPECT_EQ((Values{traffic.sent_by(0), traffic.sent_by(1), traffic.sent_by(2)}),
            (Values{6, 8, 9}));
  EXPECT_EQ((Values{traffic.received_by(0), traffic.received_by(1), traffic.received_by(2)}),
            (Values{9, 5, 9}));
  EXPECT_EQ(traffic.most_sent(), 9u);
  EXPECT_EQ(traffic.most_received(), 9u);
  EXPECT_EQ(traffic.param_count(), 0u);
  EXPECT_EQ(traffic.config(), "a2av_matrix=m.txt");
}

// The check's table of rank r: where each source's segment starts in r's receive buffer (and r's
// total), then where it starts in the source's send buffer.
TEST(PeerTraffic, ReceiveSegmentsAreTheChecksTable) {
  const PeerTraffic traffic(three_ranks(), 8, 0, "");
  // Rank 1 receives 2 from rank 0 (after its 0 for rank 0), nothing from itself, 3 from rank 2
  // (after its 1 for rank 0).
  EXPECT_EQ(traffic.receive_segments(1), (Values{0, 2, 2, 5, 0, 8, 1}));
  EXPECT_EQ(traffic.receive_segments(0), (Values{0, 0, 8, 9, 0, 0, 0}));
  EXPECT_EQ(traffic.receive_segments(2), (Values{0, 4, 4, 9, 2, 8, 4}));
}

TEST(PeerTraffic, MatrixEntriesMustBeWholeElements) {
  EXPECT_NO_THROW(matrix_traffic(three_ranks(), "m.txt", 8));
  try {
    matrix_traffic(three_ranks(), "m.txt", 16);
    ADD_FAILURE() << "8 bytes accepted as 16-byte elements";
  } catch (const UsageError& error) {
    EXPECT_STREQ(
        error.what(),
        "traffic matrix m.txt: alltoallv traffic from rank 2 to rank 0 (8 bytes) is not a whole "
        "number of 16-byte elements");
  }
}

// nccl-tests: paramcount = (count / ranks) rounded down to 16-byte lines; the spread is of
// paramcount * ranks elements a rank.
TEST(PeerTraffic, SpreadTrafficFollowsNcclTestsParamcount) {
  // 1000 bytes of float on 4 ranks: 250 / 4 = 62 -> 60 elements; 960 bytes a rank.
  const auto uniform = spread_traffic(0.0, 1000, 4, 4);
  EXPECT_EQ(uniform->param_count(), 60u);
  EXPECT_EQ(uniform->count(1, 3), 60u);
  EXPECT_EQ(uniform->most_sent(), 240u);
  EXPECT_EQ(uniform->config(), "a2av_spread=0");
  // Spread 0.5: 120 + 80 d bytes by forward distance d, rounded down to 16: 112, 192, 272, 352.
  const auto half = spread_traffic(0.5, 1000, 4, 4);
  EXPECT_EQ(half->param_count(), 60u);
  EXPECT_EQ((Values{half->count(1, 1), half->count(1, 2), half->count(1, 3), half->count(1, 0)}),
            (Values{28, 48, 68, 88}));
  EXPECT_EQ(half->most_sent(), 232u);
  EXPECT_EQ(half->most_received(), 232u);
  EXPECT_EQ(half->config(), "a2av_spread=0.5");
  EXPECT_EQ(spread_traffic(1.0, 1000, 4, 4)->config(), "a2av_spread=1");
  // Too small to fill a line per rank: nothing moves.
  const auto empty = spread_traffic(1.0, 48, 4, 4);
  EXPECT_EQ(empty->param_count(), 0u);
  EXPECT_EQ(empty->most_sent(), 0u);
  // int8 lines are 16 elements: 1000 / 3 = 333 -> 320.
  EXPECT_EQ(spread_traffic(1.0, 1000, 1, 3)->param_count(), 320u);
}

// Spreads are kept by distance; every count and offset must equal those of the same traffic kept
// as a matrix.
TEST(PeerTraffic, SpreadsByDistanceAgreeWithTheirMatrix) {
  for (int n : {1, 2, 3, 4, 5, 8}) {
    for (double spread : {0.0, 0.3, 1.0}) {
      const std::uint64_t bytes_per_rank = 16 * 101 * n;
      const auto by_distance = spread_traffic(spread, bytes_per_rank, 2, n);
      const PeerTraffic dense(spread_matrix(n, bytes_per_rank, spread), 2,
                              by_distance->param_count(), "");
      SCOPED_TRACE("n=" + std::to_string(n) + " spread=" + std::to_string(spread));
      for (int from = 0; from <= n; ++from) {
        for (int to = 0; to <= n; ++to) {
          if (from < n && to < n) {
            ASSERT_EQ(by_distance->count(from, to), dense.count(from, to)) << from << "->" << to;
          }
          if (from < n) {
            ASSERT_EQ(by_distance->send_offset(from, to), dense.send_offset(from, to))
                << from << "," << to;
          }
          if (to < n) {
            ASSERT_EQ(by_distance->recv_offset(from, to), dense.recv_offset(from, to))
                << from << "," << to;
          }
        }
      }
      for (int rank = 0; rank < n; ++rank) {
        EXPECT_EQ(by_distance->receive_segments(rank), dense.receive_segments(rank));
      }
      EXPECT_EQ(by_distance->most_sent(), dense.most_sent());
      EXPECT_EQ(by_distance->most_received(), dense.most_received());
    }
  }
}

}  // namespace
}  // namespace collbench
