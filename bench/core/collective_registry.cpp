// The registry entries: one per NCCL collective, and alltoallv as nccl-tests builds it.
#include "core/collective_registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "core/errors.hpp"
#include "core/peer_traffic.hpp"

namespace collbench {
namespace {

using kernels::OutputRule;
using kernels::SourceIndex;
using kernels::SourceRank;

// nccl-tests rounds each rank's block down to a whole number of 16-byte lines.
std::size_t aligned_block(std::size_t elements, std::size_t element_bytes, int nranks) {
  const std::size_t line_elements = 16 / element_bytes;
  return (elements / static_cast<std::size_t>(nranks)) / line_elements * line_elements;
}

ElementCounts whole_buffer(std::size_t elements, std::size_t, int, const PeerTraffic*) {
  return {elements, elements, elements};
}
ElementCounts gathered(std::size_t elements, std::size_t element_bytes, int nranks,
                       const PeerTraffic*) {
  const std::size_t block = aligned_block(elements, element_bytes, nranks);
  return {block, block * nranks, block};
}
ElementCounts scattered(std::size_t elements, std::size_t element_bytes, int nranks,
                        const PeerTraffic*) {
  const std::size_t block = aligned_block(elements, element_bytes, nranks);
  return {block * nranks, block, block};
}
ElementCounts exchanged(std::size_t elements, std::size_t element_bytes, int nranks,
                        const PeerTraffic*) {
  const std::size_t block = aligned_block(elements, element_bytes, nranks);
  return {block * nranks, block * nranks, block};
}
// nccl-tests' alltoallv: buffers as large as the busiest rank's, count = its paramcount.
ElementCounts per_peer(std::size_t, std::size_t, int, const PeerTraffic* traffic) {
  if (traffic == nullptr)
    throw std::logic_error("alltoallv counts asked without the case's traffic");
  return {traffic->most_sent(), traffic->most_received(), traffic->param_count()};
}

std::size_t param_elements(const ElementCounts& counts, int) {
  return counts.param;
}
std::size_t all_ranks_elements(const ElementCounts& counts, int nranks) {
  return counts.param * nranks;
}
// nccl-tests' AlltoAllvGetBw: the busiest rank's elements sent or received.
std::size_t busiest_rank_elements(const ElementCounts& counts, int) {
  return std::max(counts.send, counts.recv);
}
double unit_factor(int) {
  return 1.0;
}
double all_reduce_factor(int n) {
  return 2.0 * (n - 1) / n;
}
double spread_factor(int n) {
  return static_cast<double>(n - 1) / n;
}

// The NCCL calls. Each launches one rank's part; the runner wraps all ranks in a group.
void launch_all_reduce(const LaunchArgs& a) {
  CB_NCCL_CHECK(ncclAllReduce(a.send, a.recv, a.count, nccl_type_of(a.type), nccl_op_of(a.op),
                              a.comm, a.stream));
}
void launch_all_gather(const LaunchArgs& a) {
  CB_NCCL_CHECK(ncclAllGather(a.send, a.recv, a.count, nccl_type_of(a.type), a.comm, a.stream));
}
void launch_reduce_scatter(const LaunchArgs& a) {
  CB_NCCL_CHECK(ncclReduceScatter(a.send, a.recv, a.count, nccl_type_of(a.type), nccl_op_of(a.op),
                                  a.comm, a.stream));
}
void launch_broadcast(const LaunchArgs& a) {
  CB_NCCL_CHECK(
      ncclBroadcast(a.send, a.recv, a.count, nccl_type_of(a.type), a.root, a.comm, a.stream));
}
void launch_reduce(const LaunchArgs& a) {
  CB_NCCL_CHECK(ncclReduce(a.send, a.recv, a.count, nccl_type_of(a.type), nccl_op_of(a.op), a.root,
                           a.comm, a.stream));
}
void launch_alltoall(const LaunchArgs& a) {
  CB_NCCL_CHECK(ncclAlltoAll(a.send, a.recv, a.count, nccl_type_of(a.type), a.comm, a.stream));
}
void launch_gather(const LaunchArgs& a) {
  CB_NCCL_CHECK(
      ncclGather(a.send, a.recv, a.count, nccl_type_of(a.type), a.root, a.comm, a.stream));
}
void launch_scatter(const LaunchArgs& a) {
  CB_NCCL_CHECK(
      ncclScatter(a.send, a.recv, a.count, nccl_type_of(a.type), a.root, a.comm, a.stream));
}
// Ring neighbour exchange: send to the next rank, receive from the previous one.
void launch_sendrecv(const LaunchArgs& a) {
  const int next = (a.rank + 1) % a.nranks;
  const int previous = (a.rank - 1 + a.nranks) % a.nranks;
  CB_NCCL_CHECK(ncclSend(a.send, a.count, nccl_type_of(a.type), next, a.comm, a.stream));
  CB_NCCL_CHECK(ncclRecv(a.recv, a.count, nccl_type_of(a.type), previous, a.comm, a.stream));
}
// nccl-tests' alltoallv: one send and one receive per peer with a non-zero count, each on its
// segment of the packed buffers; the caller's group makes them one operation.
void launch_alltoallv(const LaunchArgs& a) {
  if (a.traffic == nullptr) throw std::logic_error("alltoallv launched without the case's traffic");
  const PeerTraffic& traffic = *a.traffic;
  const ncclDataType_t type = nccl_type_of(a.type);
  const std::size_t element_bytes = size_of(a.type);
  for (int peer = 0; peer < a.nranks; ++peer) {
    if (const std::uint64_t count = traffic.count(a.rank, peer); count > 0) {
      const char* send =
          static_cast<const char*>(a.send) + traffic.send_offset(a.rank, peer) * element_bytes;
      CB_NCCL_CHECK(ncclSend(send, count, type, peer, a.comm, a.stream));
    }
    if (const std::uint64_t count = traffic.count(peer, a.rank); count > 0) {
      char* recv = static_cast<char*>(a.recv) + traffic.recv_offset(peer, a.rank) * element_bytes;
      CB_NCCL_CHECK(ncclRecv(recv, count, type, peer, a.comm, a.stream));
    }
  }
}

}  // namespace

const std::vector<CollectiveSpec>& collective_registry() {
  static const std::vector<CollectiveSpec> registry = {
      {OpKind::all_reduce,
       "all_reduce",
       true,
       false,
       InPlaceLayout::same_buffer,
       whole_buffer,
       param_elements,
       all_reduce_factor,
       launch_all_reduce,
       {SourceRank::all_reduced, SourceIndex::same, false},
       0x76B900},
      {OpKind::all_gather,
       "all_gather",
       false,
       false,
       InPlaceLayout::send_inside_recv,
       gathered,
       all_ranks_elements,
       spread_factor,
       launch_all_gather,
       {SourceRank::output_block, SourceIndex::within_block, false},
       0x1F77B4},
      {OpKind::reduce_scatter,
       "reduce_scatter",
       true,
       false,
       InPlaceLayout::recv_inside_send,
       scattered,
       all_ranks_elements,
       spread_factor,
       launch_reduce_scatter,
       {SourceRank::all_reduced, SourceIndex::rank_block, false},
       0xFF7F0E},
      {OpKind::broadcast,
       "broadcast",
       false,
       true,
       InPlaceLayout::same_buffer,
       whole_buffer,
       param_elements,
       unit_factor,
       launch_broadcast,
       {SourceRank::root, SourceIndex::same, false},
       0xD62728},
      {OpKind::reduce,
       "reduce",
       true,
       true,
       InPlaceLayout::same_buffer,
       whole_buffer,
       param_elements,
       unit_factor,
       launch_reduce,
       {SourceRank::all_reduced, SourceIndex::same, true},
       0x9467BD},
      {OpKind::alltoall,
       "alltoall",
       false,
       false,
       InPlaceLayout::unsupported,
       exchanged,
       all_ranks_elements,
       spread_factor,
       launch_alltoall,
       {SourceRank::output_block, SourceIndex::rank_block_in_block, false},
       0x8C564B},
      {OpKind::gather,
       "gather",
       false,
       true,
       InPlaceLayout::send_inside_recv,
       gathered,
       all_ranks_elements,
       spread_factor,
       launch_gather,
       {SourceRank::output_block, SourceIndex::within_block, true},
       0xE377C2},
      {OpKind::scatter,
       "scatter",
       false,
       true,
       InPlaceLayout::recv_inside_send,
       scattered,
       all_ranks_elements,
       spread_factor,
       launch_scatter,
       {SourceRank::root, SourceIndex::rank_block, false},
       0x17BECF},
      {OpKind::sendrecv,
       "sendrecv",
       false,
       false,
       InPlaceLayout::unsupported,
       whole_buffer,
       param_elements,
       unit_factor,
       launch_sendrecv,
       {SourceRank::previous_rank, SourceIndex::same, false},
       0xBCBD22},
      {OpKind::alltoallv,
       "alltoallv",
       false,
       false,
       InPlaceLayout::unsupported,
       per_peer,
       busiest_rank_elements,
       spread_factor,
       launch_alltoallv,
       {SourceRank::segment_source, SourceIndex::segment_offset, false},
       0xC49C94,
       true},
  };
  return registry;
}

const CollectiveSpec& find_collective(std::string_view name) {
  const auto& registry = collective_registry();
  auto found = std::find_if(registry.begin(), registry.end(),
                            [&](const CollectiveSpec& s) { return s.name == name; });
  if (found != registry.end()) return *found;
  std::string known;
  for (const CollectiveSpec& s : registry)
    known += fmt::format("{}{}", known.empty() ? "" : ", ", s.name);
  throw UsageError(fmt::format("unknown operation '{}' (expected {} or all)", name, known));
}

std::size_t case_bytes(const CollectiveSpec&, const ElementCounts& counts, DataType type) {
  return std::max(counts.send, counts.recv) * size_of(type);
}

double algbw_bytes(const CollectiveSpec& spec, const ElementCounts& counts, DataType type,
                   int nranks) {
  return static_cast<double>(spec.algbw_elements(counts, nranks)) * size_of(type);
}

InPlaceOffsets in_place_offsets(const CollectiveSpec& spec, const ElementCounts& counts, int rank) {
  switch (spec.in_place) {
    case InPlaceLayout::send_inside_recv:
      return {rank * counts.param, 0};
    case InPlaceLayout::recv_inside_send:
      return {0, rank * counts.param};
    default:
      return {0, 0};
  }
}

}  // namespace collbench
