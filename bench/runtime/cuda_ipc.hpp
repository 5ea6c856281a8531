// CUDA IPC: device memory of one process made addressable by another on the same node (legacy
// cudaIpc handles, which work on any cudaMalloc allocation, e.g. the runner's buffers). A pointer
// is exported as its allocation's handle plus its offset inside it; the importer maps the
// allocation and adds the offset back.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace collbench {

// What one process sends another so that it can address `pointer` (plain bytes: it travels
// through NCCL or MPI).
struct ExportedPointer {
  cudaIpcMemHandle_t handle;
  std::uint64_t offset;   // of the pointer inside its allocation
  std::uint32_t present;  // 0: a null pointer (nothing to map)
  std::uint32_t padding;
};

// Exports `pointer` (device memory of the current device, or null); throws GpuError naming the
// call that failed.
ExportedPointer export_pointer(const void* pointer);

// Another process's allocation mapped into this one, on `device`, until destroyed (move-only).
// Freeing the exporter's allocation while it is mapped here is undefined behaviour, so the
// owner of a mapping destroys it before the exporting process may free.
class IpcMapping {
 public:
  IpcMapping() = default;
  // Maps `exported` on `device` (peer access enabled as needed); throws GpuError naming `rank`.
  IpcMapping(const ExportedPointer& exported, int device, int rank);
  ~IpcMapping();
  IpcMapping(IpcMapping&& other) noexcept;
  IpcMapping& operator=(IpcMapping&& other) noexcept;
  IpcMapping(const IpcMapping&) = delete;
  IpcMapping& operator=(const IpcMapping&) = delete;

  // The exported pointer as this process addresses it (null for a null pointer).
  void* pointer() const { return pointer_; }

 private:
  void close() noexcept;
  void* base_ = nullptr;
  void* pointer_ = nullptr;
  int device_ = -1;
};

}  // namespace collbench
