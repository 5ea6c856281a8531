// The ranks of one communicator as peers of one another for the hand-built kernels: peer access
// between their GPUs, where each rank's memory appears to the others (the same pointer within one
// process; a CUDA IPC mapping when ranks are separate processes), the host-mapped abort word every
// waiting kernel of this process polls, and the checks every hand-built algorithm shares.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/algorithm.hpp"
#include "peer_flags.cuh"
#include "runtime/cuda_ipc.hpp"
#include "runtime/cuda_resources.hpp"
#include "test_values.cuh"

namespace collbench {

// One int of pinned host memory mapped into every GPU's address space (move-only).
class HostAbortWord {
 public:
  HostAbortWord();
  ~HostAbortWord();
  HostAbortWord(const HostAbortWord&) = delete;
  HostAbortWord& operator=(const HostAbortWord&) = delete;

  int* device_pointer() const { return device_word_; }
  int value() const;
  void set(int value) noexcept;

 private:
  int* host_word_ = nullptr;
  int* device_word_ = nullptr;
};

// Why the hand-built algorithms cannot run `shape` regardless of their peers ("" when they can).
std::string handbuilt_shape_reason(const CaseShape& shape);

kernels::ElementType element_type_of(DataType type);
kernels::Reduction reduction_of(ReduceOp op);

class PeerGroup {
 public:
  // `ranks` are this process's ranks of one communicator: all of them (one process drives every
  // GPU) or exactly one (one process per GPU). Enables peer access between every pair of GPUs of
  // this process where it can (never disabled: peer access is per process pair of devices and
  // NCCL may rely on it too). Across processes it is collective: every rank's GPU, node and SM
  // count are gathered, and all processes agree on whether peer kernels can run. Ranks sharing a
  // GPU are refused unless `allow_shared_gpus` (tests of rank counts above the GPUs there are, with
  // grids small enough that every rank's kernel fits on the GPU beside the others').
  PeerGroup(const std::vector<RankContext>& ranks, double timeout_s,
            bool allow_shared_gpus = false);

  // This process's ranks.
  int size() const { return static_cast<int>(ranks_.size()); }
  // Ranks in the communicator, all processes.
  int nranks() const { return nranks_; }
  // Why these ranks cannot run a peer-to-peer kernel for `shape` ("" when they can).
  std::string unsupported_reason(const CaseShape& shape) const;
  // Index into this process's ranks of communicator rank `rank`; throws std::logic_error if absent.
  int local_index(int rank) const;
  // The fewest SMs of any rank's GPU (every process: geometry must agree).
  int min_sm_count() const { return min_sm_count_; }
  // Why these ranks' GPUs cannot reach one another's memory ("" when they can).
  const std::string& peer_access_problem() const { return peer_access_problem_; }

  // Where every rank's memory appears to each local rank: table[i][rank], for ranks[i], given
  // `pointers[i]`, ranks[i]'s own (null allowed); one table per set of `pointer_sets`, in order.
  // One process: UVA and peer access make every device pointer valid on every GPU, so this is the
  // identity. Separate processes: collective; every rank exports its pointers as CUDA IPC
  // handles, all of them travel in one NCCL all-gather, and the others' are mapped here until
  // release(). The kernels only ever see the tables.
  using PeerTable = std::vector<std::vector<void*>>;
  std::vector<PeerTable> exchange(const std::vector<RankContext>& ranks,
                                  const std::vector<std::vector<void*>>& pointer_sets, int nranks);
  // Closes every mapping exchange() opened (CollectiveAlgorithm::release: the caller then passes
  // a barrier across processes before anyone frees what it exported).
  void release() noexcept { mappings_.clear(); }

  // One zeroed allocation of `bytes` per local rank, on its device, indexed like local_index().
  std::vector<DeviceBuffer> allocate_zeroed(std::size_t bytes) const;
  // The kernels' flags for the next case (`bytes` per local rank): allocated zeroed the first
  // time, zeroed again after an aborted launch left counts that no longer agree across ranks;
  // then the abort is cleared. Only from prepare(), after synchronize().
  void ready_flags(std::vector<DeviceBuffer>& flags, std::size_t bytes);
  // Grows every local rank's buffer in `buffers` to at least `bytes`, freeing the old ones first
  // (the GPUs may not hold both). Only between cases: prepare() has synchronised this process's
  // streams, and across processes the previous case ended with release() and the runner's
  // barrier, so no kernel still uses the old buffers and no peer still maps them. The contents
  // start zeroed; the kernels never leave a message in staging when a case ends.
  void grow(std::vector<DeviceBuffer>& buffers, std::size_t bytes) const;

  // Waits until every rank's stream is idle (prepare only: no earlier case's kernel may run on).
  void synchronize(const std::vector<RankContext>& ranks) const;
  // What kernels of rank `rank` poll to learn they must stop.
  kernels::PeerAbort abort_for(int rank) const;
  void request_abort() noexcept { abort_word_.set(kernels::kAbortRequested); }
  // True when a kernel stopped early since the last clear_abort(): the flags are inconsistent.
  bool aborted() const { return abort_word_.value() != 0; }
  void clear_abort() noexcept { abort_word_.set(0); }
  // Throws GpuError naming `algorithm` and why its kernels stopped, if they did.
  void check_health(std::string_view algorithm) const;

 private:
  struct Member {
    int rank;
    int device;
  };
  void check_local_peers(bool allow_shared_gpus);
  void check_remote_peers(const RankContext& rank);

  std::vector<Member> ranks_;
  int nranks_ = 0;
  bool spans_processes_ = false;
  std::vector<IpcMapping> mappings_;  // other processes' memory, open until release()
  std::string peer_access_problem_;
  int min_sm_count_ = 0;
  std::uint64_t timeout_ns_ = 0;
  HostAbortWord abort_word_;
};

// Zeroes every buffer (after an abort left flags inconsistent); synchronous.
void zero_buffers(std::vector<DeviceBuffer>& buffers);
// True when every pointer in the table is 16-byte aligned.
bool all_aligned(const std::vector<std::vector<void*>>& table);
// The address of element `element` of a buffer of `type` starting at `base` (send buffers are
// const, but the copies and kernels take plain pointers).
char* element_at(const void* base, std::uint64_t element, DataType type);

}  // namespace collbench
