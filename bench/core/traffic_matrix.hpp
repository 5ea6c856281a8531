// Alltoallv traffic: who sends how many bytes to whom, from a matrix file or a distance-weighted
// spread, and the bytes and bus factor of nccl-tests' alltoallv_perf bandwidths.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace collbench {

// Limits that keep a wrong file or option from exhausting memory or overflowing sums.
inline constexpr std::uint64_t kMaxTrafficBytes = std::uint64_t{1}
                                                  << 40;  // an entry, and a file's total
inline constexpr std::uint64_t kMaxTrafficFileBytes = std::uint64_t{16} << 20;
inline constexpr int kMaxTrafficRanks = 4096;

struct TrafficMatrix {
  int ranks = 0;
  std::vector<std::uint64_t> bytes;  // row-major: bytes[i * ranks + j] from rank i to rank j

  std::uint64_t at(int i, int j) const;
  std::uint64_t sent_by(int i) const;      // row i, the diagonal (to itself) included
  std::uint64_t received_by(int j) const;  // column j
  std::uint64_t total() const;
};

// A square matrix of byte counts ("4096", "64K", "1M"; K = 1024), one row a line, values
// separated by blanks or commas; '#' starts a comment; blank lines are ignored. Every bad input
// is one UsageError line naming `name`, the line number and the value: not a byte count,
// negative, above kMaxTrafficBytes (an entry or the total), an empty value between commas, a row
// of the wrong length, not square, empty. Unlike nccl-tests, values are not rounded down to
// 16 bytes: alltoallv_element_counts refuses those that are not whole elements instead.
TrafficMatrix parse_traffic_matrix(const std::string& name, const std::string& text);
// The file at `path` (at most kMaxTrafficFileBytes), parsed as above.
TrafficMatrix read_traffic_matrix(const std::string& path);

// nccl-tests' generated alltoallv (NCCL_TESTS_ALLTOALLV_SPREAD), so that the two measure the same
// traffic: rank i sends rank j
//   bytes(i, j) = (1 - spread) * B / ranks + spread * d * B / (ranks (ranks - 1) / 2),
//   d = (j - i) mod ranks  (the forward distance; 0 for itself),
// rounded down to a multiple of 16 bytes, B = bytes_per_rank. Spread 0 is the uniform alltoall;
// spread 1 sends nothing to itself and the most to the rank just behind it (d = ranks - 1), a
// skew that grows with the distance. Rows and columns sum to B less the rounding. One rank keeps
// B (rounded down). Throws UsageError for spread outside [0, 1], ranks outside
// [1, kMaxTrafficRanks] or bytes_per_rank above kMaxTrafficBytes.
TrafficMatrix spread_matrix(int ranks, std::uint64_t bytes_per_rank, double spread);
// The same spread by forward distance: element d is what every rank i sends rank (i + d) mod ranks.
std::vector<std::uint64_t> spread_by_distance(int ranks, std::uint64_t bytes_per_rank,
                                              double spread);

// nccl-tests' alltoallv_perf (src/alltoallv.cu, AlltoAllvGetBw and AlltoAllvComputeMaxCounts):
// algbw = the largest of any rank's bytes sent or received (its own included) / time, i.e. the
// busiest rank, not the mean; busbw = algbw * (ranks - 1) / ranks, alltoall's factor.
std::uint64_t alltoallv_algbw_bytes(const TrafficMatrix& matrix);
double alltoallv_bus_factor(int ranks);

// Elements from rank i to rank j, row-major like TrafficMatrix::bytes: what ncclSend/ncclRecv
// take. Throws UsageError naming the pair when its bytes are not a whole number of elements.
std::vector<std::uint64_t> alltoallv_element_counts(const TrafficMatrix& matrix,
                                                    std::size_t element_bytes);

}  // namespace collbench
