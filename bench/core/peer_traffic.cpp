// Alltoallv traffic in elements: per-peer counts and the packed buffers' offsets.
#include "core/peer_traffic.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/errors.hpp"

namespace collbench {

PeerTraffic::PeerTraffic(const TrafficMatrix& matrix, std::size_t element_bytes,
                         std::uint64_t param_count, std::string config)
    : ranks_(matrix.ranks), param_count_(param_count), config_(std::move(config)) {
  const std::vector<std::uint64_t> counts = alltoallv_element_counts(matrix, element_bytes);
  const std::size_t n = static_cast<std::size_t>(ranks_);
  send_starts_.assign(n * (n + 1), 0);
  recv_starts_.assign(n * (n + 1), 0);
  for (std::size_t from = 0; from < n; ++from) {
    for (std::size_t to = 0; to < n; ++to) {
      send_starts_[from * (n + 1) + to + 1] =
          send_starts_[from * (n + 1) + to] + counts[from * n + to];
    }
  }
  for (std::size_t to = 0; to < n; ++to) {
    for (std::size_t from = 0; from < n; ++from) {
      recv_starts_[to * (n + 1) + from + 1] =
          recv_starts_[to * (n + 1) + from] + counts[from * n + to];
    }
  }
}

PeerTraffic::PeerTraffic(const std::vector<std::uint64_t>& by_distance, std::uint64_t param_count,
                         std::string config)
    : ranks_(static_cast<int>(by_distance.size())),
      param_count_(param_count),
      config_(std::move(config)) {
  distance_starts_.assign(by_distance.size() + 1, 0);
  for (std::size_t d = 0; d < by_distance.size(); ++d)
    distance_starts_[d + 1] = distance_starts_[d] + by_distance[d];
}

std::uint64_t PeerTraffic::distance_sum(int first, int length) const {
  const int end = first + length;
  if (end <= ranks_) return distance_starts_[end] - distance_starts_[first];
  return distance_starts_[ranks_] - distance_starts_[first] + distance_starts_[end - ranks_];
}

std::uint64_t PeerTraffic::count(int from, int to) const {
  return send_offset(from, to + 1) - send_offset(from, to);
}

std::uint64_t PeerTraffic::send_offset(int from, int to) const {
  // By distance: the segments for ranks 0 .. to-1 are at distances -from .. to-1-from.
  if (!distance_starts_.empty()) return distance_sum((ranks_ - from) % ranks_, to);
  return send_starts_[static_cast<std::size_t>(from) * (ranks_ + 1) + to];
}

std::uint64_t PeerTraffic::recv_offset(int from, int to) const {
  // By distance: the segments from ranks 0 .. from-1 come from distances to-from+1 .. to.
  if (!distance_starts_.empty())
    return distance_sum(((to - from + 1) % ranks_ + ranks_) % ranks_, from);
  return recv_starts_[static_cast<std::size_t>(to) * (ranks_ + 1) + from];
}

std::uint64_t PeerTraffic::most_sent() const {
  std::uint64_t most = 0;
  for (int rank = 0; rank < ranks_; ++rank) most = std::max(most, sent_by(rank));
  return most;
}

std::uint64_t PeerTraffic::most_received() const {
  std::uint64_t most = 0;
  for (int rank = 0; rank < ranks_; ++rank) most = std::max(most, received_by(rank));
  return most;
}

std::vector<std::uint64_t> PeerTraffic::receive_segments(int rank) const {
  std::vector<std::uint64_t> table;
  table.reserve(2 * static_cast<std::size_t>(ranks_) + 1);
  for (int from = 0; from <= ranks_; ++from) table.push_back(recv_offset(from, rank));
  for (int from = 0; from < ranks_; ++from) table.push_back(send_offset(from, rank));
  return table;
}

std::shared_ptr<const PeerTraffic> spread_traffic(double spread, std::size_t requested_bytes,
                                                  std::size_t element_bytes, int ranks) {
  if (ranks < 1) throw UsageError(fmt::format("alltoallv over {} ranks", ranks));
  const std::size_t line_elements = 16 / element_bytes;
  const std::size_t param = requested_bytes / element_bytes / ranks / line_elements * line_elements;
  std::vector<std::uint64_t> by_distance =
      spread_by_distance(ranks, std::uint64_t{param} * ranks * element_bytes, spread);
  // Whole 16-byte lines, so whole elements of every type.
  for (std::uint64_t& bytes : by_distance) bytes /= element_bytes;
  return std::make_shared<const PeerTraffic>(by_distance, param,
                                             fmt::format("a2av_spread={}", spread));
}

std::shared_ptr<const PeerTraffic> matrix_traffic(const TrafficMatrix& matrix,
                                                  const std::string& name,
                                                  std::size_t element_bytes) {
  try {
    return std::make_shared<const PeerTraffic>(matrix, element_bytes, 0, "a2av_matrix=" + name);
  } catch (const UsageError& error) {
    throw UsageError(fmt::format("traffic matrix {}: {}", name, error.what()));
  }
}

}  // namespace collbench
