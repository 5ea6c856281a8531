// One rank's grow-only case buffer in one registration mode (core/buffer_registration.hpp), with
// its NCCL registration: cudaMalloc memory (none), cudaMalloc memory and a local registration
// (local), or ncclMemAlloc memory and a symmetric window (symmetric). Memory and registration are
// made in two steps because windows are collective: every rank's buffers are registered at once
// (register_buffers). The registration always goes before the memory it covers.
#pragma once

#include <nccl.h>

#include <cstddef>
#include <vector>

#include "core/buffer_registration.hpp"
#include "runtime/cuda_resources.hpp"
#include "runtime/nccl_registration.hpp"

namespace collbench {

class RegisteredBuffer {
 public:
  RegisteredBuffer() = default;
  RegisteredBuffer(RegisteredBuffer&&) = default;
  // Assigning would free the old memory before its registration: reset() first, then grow.
  RegisteredBuffer& operator=(RegisteredBuffer&&) = delete;

  BufferRegistration mode() const { return mode_; }
  void* get() const { return plain_ ? plain_.get() : nccl_memory_.get(); }
  std::size_t bytes() const { return plain_ ? plain_.bytes() : nccl_memory_.bytes(); }
  int device() const { return plain_ ? plain_.device() : nccl_memory_.device(); }
  explicit operator bool() const { return get() != nullptr; }
  // Registered as its mode asks (always, for none).
  bool registered() const;

  // Makes it hold at least `bytes` on `device` in `mode`, unregistered if it had to change:
  // smaller memory, or memory of another mode, is released first (its registration before it), so
  // peak memory stays one copy. Throws GpuError (out_of_memory() set when the GPU lacks the room).
  void ensure_capacity(BufferRegistration mode, int device, std::size_t bytes);
  // Registration, then memory.
  void reset();
  // Drops the registration without an NCCL call: its communicator was aborted, which freed it.
  void forget_registration() noexcept;

  // The two ways of registering (register_buffers calls them): a local registration with
  // `comm`, or a window request for this memory and the window NCCL made for it.
  void register_local(ncclComm_t comm, int rank);
  WindowRequest window_request(ncclComm_t comm, int rank) const;
  void adopt_window(NcclWindow window);

 private:
  BufferRegistration mode_ = BufferRegistration::none;
  // Declared before the registrations, so destroyed after them.
  DeviceBuffer plain_;      // none, local
  NcclMemory nccl_memory_;  // symmetric
  NcclRegistration local_;  // local
  NcclWindow window_;       // symmetric
};

// A buffer to register and the communicator rank it belongs to.
struct BufferOfRank {
  RegisteredBuffer* buffer;
  ncclComm_t comm;
  int rank;
};

// Registers each allocated, unregistered buffer of `buffers` as its mode asks: local ones one by
// one (ncclCommRegister), symmetric ones as windows in one NCCL group (register_symmetric_windows:
// collective, so every process passes its ranks' buffers in the same order). Throws GpuError when
// NCCL refuses; what was registered before the failure stays registered.
void register_buffers(const std::vector<BufferOfRank>& buffers);

}  // namespace collbench
