// The one description of every collective: name, element counts, bandwidth definitions (those of
// nccl-tests' doc/PERFORMANCE.md), in-place layout, NCCL launch and expected output. Everything
// else (sweep, runner, checks, metrics, CSV, NVTX) reads this table.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/data_type.hpp"
#include "test_values.cuh"

namespace collbench {

enum class OpKind {
  all_reduce,
  all_gather,
  reduce_scatter,
  broadcast,
  reduce,
  alltoall,
  gather,
  scatter,
  sendrecv,
  alltoallv
};

class PeerTraffic;  // core/peer_traffic.hpp: alltoallv's per-peer counts and offsets

// Element counts of one case on one rank, from the requested byte size (nccl-tests semantics).
struct ElementCounts {
  std::size_t send = 0;   // elements in the send buffer
  std::size_t recv = 0;   // elements in the receive buffer
  std::size_t param = 0;  // the count passed to the call; nccl-tests' "count" column
};

// How the in-place variant places the send and receive buffers in one allocation.
enum class InPlaceLayout {
  unsupported,       // in-place has no meaning (alltoall, alltoallv, sendrecv)
  same_buffer,       // send == recv
  send_inside_recv,  // send = recv + rank * param (all_gather, gather)
  recv_inside_send,  // recv = send + rank * param (reduce_scatter, scatter)
};

// Everything one NCCL call needs.
struct LaunchArgs {
  const void* send;
  void* recv;
  std::size_t count;  // ElementCounts::param
  DataType type;
  ReduceOp op;
  int root;
  int rank;
  int nranks;
  ncclComm_t comm;
  cudaStream_t stream;
  const PeerTraffic* traffic;  // who sends how much to whom (ops that take traffic); else null
};

struct CollectiveSpec {
  OpKind kind;
  std::string_view name;  // CSV and benchmark key
  bool reduces;
  bool rooted;
  InPlaceLayout in_place;
  // nccl-tests' GetCollByteCount: per-rank blocks rounded down to whole 16-byte lines. `traffic`
  // is the case's traffic for ops that take one (takes_traffic), else null.
  ElementCounts (*counts)(std::size_t requested_elements, std::size_t element_bytes, int nranks,
                          const PeerTraffic* traffic);
  // Algorithm bandwidth's numerator in elements: bytes = algbw_elements(counts, n) * element_bytes.
  std::size_t (*algbw_elements)(const ElementCounts& counts, int nranks);
  // busbw = algbw * bus_factor(n): the bytes each rank's link must carry per algorithm byte.
  double (*bus_factor)(int nranks);
  void (*launch_nccl)(const LaunchArgs& args);  // one rank's share; the caller groups ranks
  kernels::OutputRule expected;
  std::uint32_t nvtx_color;  // 0xRRGGBB
  // Each case carries a PeerTraffic (who sends how much to whom) that counts and launch read:
  // alltoallv, whose sizes per peer differ.
  bool takes_traffic = false;
};

const std::vector<CollectiveSpec>& collective_registry();
// Throws UsageError listing the known names when `name` is not one.
const CollectiveSpec& find_collective(std::string_view name);

// Derived quantities every consumer computes the same way.
std::size_t case_bytes(const CollectiveSpec& spec, const ElementCounts& counts,
                       DataType type);  // nccl-tests "size"
double algbw_bytes(const CollectiveSpec& spec, const ElementCounts& counts, DataType type,
                   int nranks);

// Element offsets of the send and receive pointers inside the one in-place allocation.
struct InPlaceOffsets {
  std::size_t send = 0;
  std::size_t recv = 0;
};
InPlaceOffsets in_place_offsets(const CollectiveSpec& spec, const ElementCounts& counts, int rank);

}  // namespace collbench
