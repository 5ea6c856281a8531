// Host data of every rank of a communicator whose ranks are separate processes (one rank per
// process), gathered through NCCL on the rank's stream: how the hand-built algorithms exchange
// CUDA IPC handles and agree on what they can run, with no second transport.
#pragma once

#include <cstddef>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/algorithm.hpp"

namespace collbench {

// Every rank's `bytes` bytes at `mine`, in rank order (nranks * bytes). Collective: every rank of
// `rank.comm` calls it with the same `bytes`. Throws GpuError on a CUDA or NCCL error, CaseTimeout
// when the other ranks do not arrive within `timeout_s` (0: wait forever), Interrupted on a signal.
std::vector<unsigned char> all_gather_host_bytes(const RankContext& rank, const void* mine,
                                                 std::size_t bytes, int nranks, double timeout_s);

// The same for one trivially copyable record per rank.
template <typename Record>
std::vector<Record> all_gather_records(const RankContext& rank, const Record& mine, int nranks,
                                       double timeout_s) {
  static_assert(std::is_trivially_copyable_v<Record>, "records travel as bytes");
  const std::vector<unsigned char> bytes =
      all_gather_host_bytes(rank, &mine, sizeof(Record), nranks, timeout_s);
  std::vector<Record> records(nranks);
  std::memcpy(records.data(), bytes.data(), bytes.size());
  return records;
}

}  // namespace collbench
