// Peer access, the abort word and the shared checks of the hand-built algorithms.
#include "algorithms/handbuilt_peer_group.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "core/errors.hpp"
#include "launch/process_group.hpp"
#include "runtime/process_all_gather.hpp"

namespace collbench {

HostAbortWord::HostAbortWord() {
  void* host = nullptr;
  // Portable: every GPU's context maps it. Mapped: kernels read it in place, over PCIe.
  CB_CUDA_CHECK(cudaHostAlloc(&host, sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable));
  host_word_ = static_cast<int*>(host);
  *host_word_ = 0;
  void* device = nullptr;
  const cudaError_t status = cudaHostGetDevicePointer(&device, host, 0);
  if (status != cudaSuccess) {
    CB_CUDA_CHECK_NOTHROW(cudaFreeHost(host));
    throw_cuda_error(status, "cudaHostGetDevicePointer(abort word)", __FILE__, __LINE__);
  }
  device_word_ = static_cast<int*>(device);
}

HostAbortWord::~HostAbortWord() {
  if (host_word_) CB_CUDA_CHECK_NOTHROW(cudaFreeHost(host_word_));
}

// The GPU writes this word too (a timeout), so the host reads and writes it atomically.
int HostAbortWord::value() const {
  return __atomic_load_n(host_word_, __ATOMIC_ACQUIRE);
}
void HostAbortWord::set(int value) noexcept {
  __atomic_store_n(host_word_, value, __ATOMIC_RELEASE);
}

std::string handbuilt_shape_reason(const CaseShape& shape) {
  if (shape.spec->kind != OpKind::all_reduce) {
    return fmt::format("hand-built algorithms implement all_reduce only, not {}", shape.spec->name);
  }
  if (shape.op == ReduceOp::none) return "hand-built all-reduce needs a reduction operation";
  if (shape.nranks < 2) {
    return fmt::format("hand-built all-reduce needs at least 2 ranks, not {}", shape.nranks);
  }
  return {};
}

// collbench's enums and the kernels' mirror them in the same order (test_values.cuh).
kernels::ElementType element_type_of(DataType type) {
  return static_cast<kernels::ElementType>(type);
}
kernels::Reduction reduction_of(ReduceOp op) {
  return static_cast<kernels::Reduction>(op);
}

PeerGroup::PeerGroup(const std::vector<RankContext>& ranks, double timeout_s,
                     bool allow_shared_gpus)
    : timeout_ns_(timeout_s > 0 ? static_cast<std::uint64_t>(timeout_s * 1e9) : 0) {
  min_sm_count_ = 1 << 30;
  for (const RankContext& rank : ranks) {
    ranks_.push_back({rank.rank, rank.device});
    int sms = 0;
    CB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, rank.device));
    min_sm_count_ = std::min(min_sm_count_, sms);
  }
  nranks_ = static_cast<int>(ranks.size());
  if (!ranks.empty() && ranks.front().comm != nullptr) {
    CB_NCCL_CHECK(ncclCommCount(ranks.front().comm, &nranks_));
  }
  spans_processes_ = nranks_ > static_cast<int>(ranks.size());
  if (spans_processes_) {
    if (ranks.size() != 1) {
      // Not a launch collbench makes; every process still takes part in the gathers below.
      throw std::logic_error(
          fmt::format("hand-built algorithms across processes need one rank per process, not {}",
                      ranks.size()));
    }
    check_remote_peers(ranks.front());
  } else {
    check_local_peers(allow_shared_gpus);
  }
}

void PeerGroup::check_local_peers(bool allow_shared_gpus) {
  for (const Member& from : ranks_) {
    for (const Member& to : ranks_) {
      if (from.rank == to.rank) continue;
      if (from.device == to.device) {
        if (allow_shared_gpus) continue;  // its own memory: no peer access needed
        // Two ranks' kernels on one GPU could each hold all SMs while waiting for the other.
        peer_access_problem_ =
            fmt::format("ranks {} and {} share GPU {}", from.rank, to.rank, from.device);
        return;
      }
      int possible = 0;
      CB_CUDA_CHECK(cudaDeviceCanAccessPeer(&possible, from.device, to.device));
      if (!possible) {
        peer_access_problem_ =
            fmt::format("GPU {} cannot access GPU {} as a peer", from.device, to.device);
        return;
      }
      ScopedDevice on(from.device, from.rank);
      const cudaError_t status = cudaDeviceEnablePeerAccess(to.device, 0);
      if (status == cudaSuccess) continue;
      (void)cudaGetLastError();  // not sticky: clear it so that no later launch check reports it
      if (status != cudaErrorPeerAccessAlreadyEnabled) {
        peer_access_problem_ = fmt::format("cudaDeviceEnablePeerAccess from GPU {} to GPU {}: {}",
                                           from.device, to.device, cudaGetErrorString(status));
        return;
      }
    }
  }
}

namespace {

// What each rank tells the others about its GPU.
struct PeerIdentity {
  char bus_id[32];
  std::uint64_t host;
  std::int32_t sm_count;
  std::int32_t padding;
};

}  // namespace

// Every process learns every rank's GPU and node, checks what it can see from its own GPU, and
// then all agree: one process skipping a case that the others run would leave them waiting.
void PeerGroup::check_remote_peers(const RankContext& rank) {
  const double timeout_s = timeout_ns_ / 1e9;
  PeerIdentity mine{};
  CB_CUDA_CHECK(cudaDeviceGetPCIBusId(mine.bus_id, sizeof(mine.bus_id) - 1, rank.device));
  mine.host = this_host_hash();
  mine.sm_count = min_sm_count_;
  const std::vector<PeerIdentity> all = all_gather_records(rank, mine, nranks_, timeout_s);
  std::string problem;
  for (int peer = 0; peer < nranks_; ++peer) {
    min_sm_count_ = std::min(min_sm_count_, static_cast<int>(all[peer].sm_count));
    if (peer == rank.rank || !problem.empty()) continue;
    if (all[peer].host != mine.host) {
      problem = fmt::format("ranks {} and {} are on different nodes (peer kernels need one node)",
                            rank.rank, peer);
    } else if (std::strncmp(all[peer].bus_id, mine.bus_id, sizeof(mine.bus_id)) == 0) {
      problem = fmt::format("ranks {} and {} share GPU {}", rank.rank, peer, mine.bus_id);
    } else if (int device = -1; cudaDeviceGetByPCIBusId(&device, all[peer].bus_id) == cudaSuccess) {
      int possible = 0;
      CB_CUDA_CHECK(cudaDeviceCanAccessPeer(&possible, rank.device, device));
      if (!possible) {
        problem =
            fmt::format("GPU {} cannot access GPU {} as a peer", mine.bus_id, all[peer].bus_id);
      }
    } else {
      // Not visible here (one GPU per process): CUDA IPC maps it anyway, through peer access.
      (void)cudaGetLastError();
    }
  }
  const std::int32_t ok = problem.empty() ? 1 : 0;
  const std::vector<std::int32_t> oks = all_gather_records(rank, ok, nranks_, timeout_s);
  for (int peer = 0; peer < nranks_ && problem.empty(); ++peer) {
    if (!oks[peer])
      problem = fmt::format("rank {}'s GPU cannot reach its peers (see that rank's process)", peer);
  }
  peer_access_problem_ = problem;
}

std::string PeerGroup::unsupported_reason(const CaseShape& shape) const {
  if (std::string why = handbuilt_shape_reason(shape); !why.empty()) return why;
  if (shape.nranks > kernels::kMaxPeerRanks) {
    return fmt::format("peer-to-peer kernels handle at most {} ranks, not {}",
                       kernels::kMaxPeerRanks, shape.nranks);
  }
  if (nranks_ != shape.nranks) {
    throw std::logic_error(
        fmt::format("peer group of {} ranks asked to run {} ranks", nranks_, shape.nranks));
  }
  return peer_access_problem_;
}

int PeerGroup::local_index(int rank) const {
  for (std::size_t i = 0; i < ranks_.size(); ++i) {
    if (ranks_[i].rank == rank) return static_cast<int>(i);
  }
  throw std::logic_error(fmt::format("rank {} is not driven by this process", rank));
}

std::vector<PeerGroup::PeerTable> PeerGroup::exchange(
    const std::vector<RankContext>& ranks, const std::vector<std::vector<void*>>& pointer_sets,
    int nranks) {
  std::vector<PeerTable> tables(pointer_sets.size(),
                                PeerTable(ranks.size(), std::vector<void*>(nranks, nullptr)));
  if (!spans_processes_) {
    for (std::size_t set = 0; set < pointer_sets.size(); ++set) {
      for (std::size_t local = 0; local < ranks.size(); ++local) {
        for (std::size_t owner = 0; owner < ranks.size(); ++owner) {
          tables[set][local][ranks[owner].rank] = pointer_sets[set][owner];
        }
      }
    }
    return tables;
  }
  const RankContext& rank = ranks.front();
  const std::size_t sets = pointer_sets.size();
  std::vector<ExportedPointer> mine(sets);
  {
    ScopedDevice on(rank.device, rank.rank);
    for (std::size_t set = 0; set < sets; ++set)
      mine[set] = export_pointer(pointer_sets[set].front());
  }
  const std::vector<unsigned char> bytes = all_gather_host_bytes(
      rank, mine.data(), sets * sizeof(ExportedPointer), nranks, timeout_ns_ / 1e9);
  for (int owner = 0; owner < nranks; ++owner) {
    for (std::size_t set = 0; set < sets; ++set) {
      if (owner == rank.rank) {
        tables[set][0][owner] = pointer_sets[set].front();
        continue;
      }
      ExportedPointer theirs;
      std::memcpy(&theirs, bytes.data() + (owner * sets + set) * sizeof(ExportedPointer),
                  sizeof(theirs));
      mappings_.emplace_back(theirs, rank.device, rank.rank);
      tables[set][0][owner] = mappings_.back().pointer();
    }
  }
  return tables;
}

void PeerGroup::synchronize(const std::vector<RankContext>& ranks) const {
  for (const RankContext& rank : ranks) {
    ScopedDevice on(rank.device, rank.rank);
    CB_CUDA_CHECK(cudaStreamSynchronize(rank.stream));
  }
}

kernels::PeerAbort PeerGroup::abort_for(int rank) const {
  return {abort_word_.device_pointer(), timeout_ns_, rank};
}

void PeerGroup::check_health(std::string_view algorithm) const {
  const int word = abort_word_.value();
  if (word == 0) return;
  if (word == kernels::kAbortRequested) {
    throw GpuError(
        fmt::format("{}: kernels stopped on request (abort); outputs are undefined", algorithm),
        false);
  }
  throw GpuError(
      fmt::format(
          "{}: rank {} waited more than {:g} s for a peer and gave up; outputs are undefined",
          algorithm, word - kernels::kAbortTimedOutBase, timeout_ns_ / 1e9),
      false);
}

std::vector<DeviceBuffer> PeerGroup::allocate_zeroed(std::size_t bytes) const {
  std::vector<DeviceBuffer> buffers;
  for (const Member& rank : ranks_) {
    buffers.emplace_back(rank.device, bytes);
    ScopedDevice on(rank.device, rank.rank);
    CB_CUDA_CHECK(cudaMemset(buffers.back().get(), 0, bytes));
    // The ranks' streams do not wait for the legacy stream's memset: finish it now.
    CB_CUDA_CHECK(cudaDeviceSynchronize());
  }
  return buffers;
}

void PeerGroup::ready_flags(std::vector<DeviceBuffer>& flags, std::size_t bytes) {
  if (flags.empty()) {
    flags = allocate_zeroed(bytes);
  } else if (aborted()) {
    zero_buffers(flags);
  }
  clear_abort();
}

void PeerGroup::grow(std::vector<DeviceBuffer>& buffers, std::size_t bytes) const {
  if (!buffers.empty() && buffers.front().bytes() >= bytes) return;
  buffers.clear();
  buffers = allocate_zeroed(bytes);
}

void zero_buffers(std::vector<DeviceBuffer>& buffers) {
  for (DeviceBuffer& buffer : buffers) {
    ScopedDevice on(buffer.device());
    CB_CUDA_CHECK(cudaMemset(buffer.get(), 0, buffer.bytes()));
    CB_CUDA_CHECK(cudaDeviceSynchronize());
  }
}

char* element_at(const void* base, std::uint64_t element, DataType type) {
  return static_cast<char*>(const_cast<void*>(base)) + element * size_of(type);
}

bool all_aligned(const std::vector<std::vector<void*>>& table) {
  for (const auto& row : table) {
    for (void* pointer : row) {
      if (reinterpret_cast<std::uintptr_t>(pointer) % 16 != 0) return false;
    }
  }
  return true;
}

}  // namespace collbench
