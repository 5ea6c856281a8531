// Exporting and mapping device pointers between processes.
#include "runtime/cuda_ipc.hpp"

#include <cuda.h>
#include <fmt/format.h>

#include <utility>

#include "core/errors.hpp"
#include "runtime/cuda_resources.hpp"
#include "runtime/driver_entry_point.hpp"

namespace collbench {
namespace {

using AddressRangeFunction = CUresult (*)(CUdeviceptr* base, std::size_t* size,
                                          CUdeviceptr pointer);

AddressRangeFunction address_range_function() {
  static const auto function = driver_function<AddressRangeFunction>("cuMemGetAddressRange");
  return function;
}

}  // namespace

ExportedPointer export_pointer(const void* pointer) {
  ExportedPointer exported{};
  if (pointer == nullptr) return exported;
  CUdeviceptr base = 0;
  std::size_t size = 0;
  const CUresult status =
      address_range_function()(&base, &size, reinterpret_cast<CUdeviceptr>(pointer));
  if (status != CUDA_SUCCESS) {
    throw GpuError(fmt::format("cuMemGetAddressRange({}) failed with CUresult {} (rank {})",
                               pointer, static_cast<int>(status), current_rank()),
                   false);
  }
  void* allocation = reinterpret_cast<void*>(base);
  CB_CUDA_CHECK(cudaIpcGetMemHandle(&exported.handle, allocation));
  exported.offset = reinterpret_cast<CUdeviceptr>(pointer) - base;
  exported.present = 1;
  return exported;
}

IpcMapping::IpcMapping(const ExportedPointer& exported, int device, int rank) : device_(device) {
  if (!exported.present) return;
  ScopedDevice on(device, rank);
  CB_CUDA_CHECK(cudaIpcOpenMemHandle(&base_, exported.handle, cudaIpcMemLazyEnablePeerAccess));
  pointer_ = static_cast<char*>(base_) + exported.offset;
}

IpcMapping::~IpcMapping() {
  close();
}

IpcMapping::IpcMapping(IpcMapping&& other) noexcept
    : base_(std::exchange(other.base_, nullptr)),
      pointer_(std::exchange(other.pointer_, nullptr)),
      device_(other.device_) {}

IpcMapping& IpcMapping::operator=(IpcMapping&& other) noexcept {
  if (this != &other) {
    close();
    base_ = std::exchange(other.base_, nullptr);
    pointer_ = std::exchange(other.pointer_, nullptr);
    device_ = other.device_;
  }
  return *this;
}

void IpcMapping::close() noexcept {
  if (base_ == nullptr) return;
  ScopedDevice on(device_);
  CB_CUDA_CHECK_NOTHROW(cudaIpcCloseMemHandle(base_));
  base_ = nullptr;
  pointer_ = nullptr;
}

}  // namespace collbench
