// Peer access, the abort word and the shared checks of the hand-built algorithms.
#include "handbuilt_peer_group.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "errors.hpp"

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

PeerGroup::PeerGroup(const std::vector<RankContext>& ranks, double timeout_s)
    : timeout_ns_(timeout_s > 0 ? static_cast<std::uint64_t>(timeout_s * 1e9) : 0) {
  min_sm_count_ = 1 << 30;
  for (const RankContext& rank : ranks) {
    ranks_.push_back({rank.rank, rank.device});
    int sms = 0;
    CB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, rank.device));
    min_sm_count_ = std::min(min_sm_count_, sms);
  }
  for (const Member& from : ranks_) {
    for (const Member& to : ranks_) {
      if (from.rank == to.rank) continue;
      if (from.device == to.device) {
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

std::string PeerGroup::unsupported_reason(const CaseShape& shape) const {
  if (std::string why = handbuilt_shape_reason(shape); !why.empty()) return why;
  if (shape.nranks > kernels::kMaxPeerRanks) {
    return fmt::format("peer-to-peer kernels handle at most {} ranks, not {}",
                       kernels::kMaxPeerRanks, shape.nranks);
  }
  if (size() != shape.nranks) {
    return fmt::format(
        "all {} ranks must be in this process (it drives {}); the CUDA IPC path is not built",
        shape.nranks, size());
  }
  return peer_access_problem_;
}

int PeerGroup::local_index(int rank) const {
  for (std::size_t i = 0; i < ranks_.size(); ++i) {
    if (ranks_[i].rank == rank) return static_cast<int>(i);
  }
  throw std::logic_error(fmt::format("rank {} is not driven by this process", rank));
}

std::vector<std::vector<void*>> PeerGroup::exchange(const std::vector<RankContext>& ranks,
                                                    const std::vector<void*>& pointers,
                                                    int nranks) const {
  std::vector<std::vector<void*>> table(ranks.size(), std::vector<void*>(nranks, nullptr));
  for (std::size_t local = 0; local < ranks.size(); ++local) {
    for (std::size_t owner = 0; owner < ranks.size(); ++owner) {
      table[local][ranks[owner].rank] = pointers[owner];
    }
  }
  return table;
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

void zero_buffers(std::vector<DeviceBuffer>& buffers) {
  for (DeviceBuffer& buffer : buffers) {
    ScopedDevice on(buffer.device());
    CB_CUDA_CHECK(cudaMemset(buffer.get(), 0, buffer.bytes()));
    CB_CUDA_CHECK(cudaDeviceSynchronize());
  }
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
