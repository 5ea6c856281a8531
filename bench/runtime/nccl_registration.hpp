// Owners of NCCL's buffer resources: memory from ncclMemAlloc, a local registration
// (ncclCommRegister) and a symmetric window (ncclCommWindowRegister). Destructors release and
// never throw (a failure is a warning). A registration must go before the memory it covers, and
// none may outlive its communicator: after ncclCommAbort, which frees them all, forget() it.
#pragma once

#include <nccl.h>

#include <cstddef>
#include <utility>
#include <vector>

#include "runtime/cuda_resources.hpp"

namespace collbench {

struct NcclMemoryTraits {
  static void release(void* pointer, int device);
};

// Device memory from ncclMemAlloc: cuMem-backed, so NCCL can map it into its peers (what a
// symmetric window needs). Kernels and cudaMemset use it like any device memory.
class NcclMemory : public DeviceHandle<void*, NcclMemoryTraits> {
 public:
  NcclMemory() = default;
  // At least `bytes` (one byte for 0) on `device`, rounded up to the allocation granularity;
  // bytes() says how many. Throws GpuError, with out_of_memory() set when the GPU has not the room.
  NcclMemory(int device, std::size_t bytes);
  std::size_t bytes() const { return bytes_; }

 private:
  std::size_t bytes_ = 0;
};

// The recommended granularity of cuMem allocations on `device` (what ncclMemAlloc rounds up to).
std::size_t nccl_allocation_granularity(int device);

// One NCCL handle tied to a communicator: move-only, released by Traits::release(comm, handle,
// device, rank), which reports a failure instead of throwing.
template <typename Handle, typename Traits>
class CommunicatorHandle {
 public:
  CommunicatorHandle() = default;
  CommunicatorHandle(ncclComm_t comm, Handle handle, int device, int rank)
      : comm_(comm), handle_(handle), device_(device), rank_(rank) {}
  ~CommunicatorHandle() { reset(); }
  CommunicatorHandle(CommunicatorHandle&& other) noexcept
      : comm_(other.comm_),
        handle_(std::exchange(other.handle_, Handle{})),
        device_(other.device_),
        rank_(other.rank_) {}
  CommunicatorHandle& operator=(CommunicatorHandle&& other) noexcept {
    if (this != &other) {
      reset();
      comm_ = other.comm_;
      handle_ = std::exchange(other.handle_, Handle{});
      device_ = other.device_;
      rank_ = other.rank_;
    }
    return *this;
  }
  CommunicatorHandle(const CommunicatorHandle&) = delete;
  CommunicatorHandle& operator=(const CommunicatorHandle&) = delete;

  Handle get() const { return handle_; }
  explicit operator bool() const { return handle_ != Handle{}; }
  void reset() noexcept {
    if (handle_ != Handle{}) Traits::release(comm_, handle_, device_, rank_);
    handle_ = Handle{};
  }
  // Drops the handle without an NCCL call: its communicator was aborted, which freed it.
  void forget() noexcept { handle_ = Handle{}; }

 private:
  ncclComm_t comm_ = nullptr;
  Handle handle_{};
  int device_ = -1;
  int rank_ = -1;
};

// Releasing is per rank, never collective (NCCL 2.28 register.cc, dev_runtime.cc): a deregistration
// waits for no peer's main thread, only for the peers' proxy threads where NCCL had mapped the
// buffer into them (send/recv's zero-copy), so one thread may release its ranks one by one.
struct LocalRegistrationTraits {
  static void release(ncclComm_t comm, void* handle, int device, int rank) noexcept;
};
struct WindowTraits {
  static void release(ncclComm_t comm, ncclWindow_t window, int device, int rank) noexcept;
};

// A local registration (ncclCommRegister; not collective: it only records the range): NCCL may
// then move data straight from and into the buffer (zero-copy) instead of through its own staging
// buffers, within a node only for ncclMemAlloc/cuMem memory by default.
class NcclRegistration : public CommunicatorHandle<void*, LocalRegistrationTraits> {
 public:
  NcclRegistration() = default;
  // Registers [pointer, pointer + bytes) of rank `rank` (on `device`) with `comm`. Throws GpuError
  // when NCCL refuses. With NCCL_LOCAL_REGISTER=0 NCCL registers nothing and says so only by a
  // null handle: then it holds none (false).
  NcclRegistration(ncclComm_t comm, void* pointer, std::size_t bytes, int device, int rank);
};

// A window registered with NCCL_WIN_COLL_SYMMETRIC (made by register_symmetric_windows).
using NcclWindow = CommunicatorHandle<ncclWindow_t, WindowTraits>;

// One window to register: ncclMemAlloc memory of one rank of `comm`.
struct WindowRequest {
  ncclComm_t comm;
  void* pointer;
  std::size_t bytes;
  int device;
  int rank;
};

// Registers every request as a symmetric window, all in one NCCL group. The call is collective
// over each communicator: a process driving several ranks of one communicator registers them
// together, and every rank must ask for its windows in the same order with the same sizes.
// Returns the windows in request order. Throws GpuError (NCCL's last error in the message) when
// NCCL refuses, lacks the call (before 2.27) or makes no window (a communicator without
// symmetric-memory support and NCCL_LOCAL_REGISTER=0); the windows it made are deregistered.
std::vector<NcclWindow> register_symmetric_windows(const std::vector<WindowRequest>& requests);

// The NCCL library loaded at run time, as ncclGetVersion's code (22803 for 2.28.3).
int nccl_runtime_version_code();

}  // namespace collbench
