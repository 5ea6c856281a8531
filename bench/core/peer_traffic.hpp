// One alltoallv case's traffic in elements, laid out as nccl-tests' alltoallv_perf lays it out:
// a rank's send buffer holds its segments for ranks 0, 1, ... back to back, its receive buffer
// the segments from ranks 0, 1, ... back to back. Immutable; the cases of one size share it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/traffic_matrix.hpp"

namespace collbench {

class PeerTraffic {
 public:
  // `matrix` (bytes) in elements of `element_bytes`; `param_count` is the case's count column
  // (nccl-tests' paramcount), `config` how the CSV config column names where the traffic came
  // from. Throws UsageError naming the pair when an entry is not a whole number of elements.
  PeerTraffic(const TrafficMatrix& matrix, std::size_t element_bytes, std::uint64_t param_count,
              std::string config);
  // Traffic in which every rank i sends rank (i + d) mod n by_distance[d] elements (nccl-tests'
  // spreads). Kept in O(n) memory, as a sweep holds one per size, type and spread.
  PeerTraffic(const std::vector<std::uint64_t>& by_distance, std::uint64_t param_count,
              std::string config);

  int ranks() const { return ranks_; }
  // Elements from rank `from` to rank `to`.
  std::uint64_t count(int from, int to) const;
  // Where that segment starts in `from`'s send buffer and in `to`'s receive buffer (elements).
  std::uint64_t send_offset(int from, int to) const;
  std::uint64_t recv_offset(int from, int to) const;
  std::uint64_t sent_by(int rank) const { return send_offset(rank, ranks_); }
  std::uint64_t received_by(int rank) const { return recv_offset(ranks_, rank); }
  // The largest of any rank: the send and receive buffers' sizes.
  std::uint64_t most_sent() const;
  std::uint64_t most_received() const;
  std::uint64_t param_count() const { return param_count_; }
  const std::string& config() const { return config_; }

  // The check's table of `rank` (kernels/test_values.cuh, PatternParams::segments): ranks + 1
  // offsets in its receive buffer (where each source's segment starts; the last is its received
  // total), then for each source where that segment starts in the source's send buffer.
  std::vector<std::uint64_t> receive_segments(int rank) const;

 private:
  // by_distance[first] + ... + by_distance[first + length - 1], indices mod ranks (length <=
  // ranks).
  std::uint64_t distance_sum(int first, int length) const;

  int ranks_;
  std::uint64_t param_count_;
  std::string config_;
  // Traffic by distance: prefix sums of by_distance, ranks + 1 (empty for a matrix).
  std::vector<std::uint64_t> distance_starts_;
  // A matrix's row-major prefix sums, ranks x (ranks + 1): send_starts_[from][to] =
  // send_offset(from, to); recv_starts_[to][from] = recv_offset(from, to). Index ranks: totals.
  std::vector<std::uint64_t> send_starts_;
  std::vector<std::uint64_t> recv_starts_;
};

// nccl-tests' generated alltoallv at the sweep size `requested_bytes` (what each rank sends in
// all): paramcount = requested elements / ranks rounded down to whole 16-byte lines, and the
// traffic of spread_matrix(ranks, paramcount * ranks * element_bytes, spread). Config
// "a2av_spread=0.5".
std::shared_ptr<const PeerTraffic> spread_traffic(double spread, std::size_t requested_bytes,
                                                  std::size_t element_bytes, int ranks);
// A traffic matrix file's traffic, as is (paramcount 0, as nccl-tests reports it). Config
// "a2av_matrix=NAME". Throws UsageError naming `name` when an entry is not whole elements.
std::shared_ptr<const PeerTraffic> matrix_traffic(const TrafficMatrix& matrix,
                                                  const std::string& name,
                                                  std::size_t element_bytes);

}  // namespace collbench
