// Host memory shared by the processes of one host and readable by their GPUs: a POSIX shared-
// memory segment, mapped by each process and registered with CUDA (mapped, portable). The
// start gates of a multi-process run keep their words here (runtime/start_gate.hpp).
#pragma once

#include <cstddef>
#include <string>

namespace collbench {

class HostSharedMemory {
 public:
  // Opens (creating it when it does not exist) the segment `name` ("/collbench-..."), `bytes`
  // long and zero-filled when new, maps it and registers it with the current device's context
  // (portable: every device of the process can read it). Throws GpuError naming the call.
  HostSharedMemory(std::string name, std::size_t bytes);
  // Unregisters and unmaps (the segment itself is removed by unlink(), or when the host reboots).
  ~HostSharedMemory();
  HostSharedMemory(const HostSharedMemory&) = delete;
  HostSharedMemory& operator=(const HostSharedMemory&) = delete;

  // Removes the segment's name once every process has opened it: mappings stay valid, and a run
  // that dies later leaves nothing behind. Idempotent across processes.
  void unlink() noexcept;

  void* host() const { return memory_; }
  // Where `host_address` (inside the segment) is seen by `device`'s kernels.
  void* device_view(const void* host_address, int device) const;
  std::size_t bytes() const { return bytes_; }
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  std::size_t bytes_ = 0;
  void* memory_ = nullptr;
  bool registered_ = false;
};

}  // namespace collbench
