// One of a rank's stream buffers (send or receive) in the combination's registration mode
// (--register): cudaMalloc memory (none), or ncclMemAlloc memory registered with ncclCommRegister
// on every communicator whose ops use the stream (local: NCCL finds a registration by address and
// communicator, and a stream's buffers serve ops of several communicators). ncclMemAlloc memory
// for local as collbench's (core/buffer_registration.hpp, uses_nccl_memory): NCCL maps only such
// memory into its peers. The registrations go before the memory they cover.
#pragma once

#include <nccl.h>

#include <cstddef>
#include <vector>

#include "core/buffer_registration.hpp"
#include "runtime/cuda_resources.hpp"
#include "runtime/nccl_registration.hpp"

namespace collbench::replay {

class ReplayBuffer {
 public:
  // At least `bytes` on `device`; throws GpuError (out_of_memory() set when the GPU lacks room).
  ReplayBuffer(BufferRegistration mode, int device, std::size_t bytes);
  ReplayBuffer(ReplayBuffer&&) = default;
  ReplayBuffer& operator=(ReplayBuffer&&) = delete;  // would free memory before its registrations

  void* get() const { return plain_ ? plain_.get() : nccl_memory_.get(); }
  template <typename T>
  T* as() const {
    return static_cast<T*>(get());
  }
  // Registers the whole buffer with `comm` (rank `rank` of it) under local; nothing under none.
  // Throws GpuError when NCCL refuses.
  void register_with(ncclComm_t comm, int rank);
  // At an abort: the registrations were freed with their communicators, and the memory is left
  // to the process's end (a hung kernel may still use it).
  void abandon() noexcept;

 private:
  BufferRegistration mode_;
  int device_;
  // Declared before the registrations, so destroyed after them.
  DeviceBuffer plain_;      // none
  NcclMemory nccl_memory_;  // local
  std::vector<NcclRegistration> registrations_;
};

}  // namespace collbench::replay
