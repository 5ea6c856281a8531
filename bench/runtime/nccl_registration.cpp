// NCCL memory, local registrations and symmetric windows: creation and release.
#include "runtime/nccl_registration.hpp"

#include <cuda.h>
#include <fmt/format.h>

#include <cstdio>
#include <cstring>

#include "core/errors.hpp"
#include "runtime/driver_entry_point.hpp"
#include "runtime/nccl_group.hpp"

// Windows came with NCCL 2.27: weak, so that collbench still starts on an older library, where
// they are null (and symmetric cases are skipped before any call).
#pragma weak ncclCommWindowRegister
#pragma weak ncclCommWindowDeregister

namespace collbench {
namespace {

std::string nccl_last_error() {
  const char* last = ncclGetLastError(nullptr);
  return last && *last ? fmt::format(" (NCCL: {})", last) : std::string();
}

void* allocate_nccl_memory(int device, std::size_t bytes) {
  ScopedDevice on(device);
  void* pointer = nullptr;
  const ncclResult_t status = ncclMemAlloc(&pointer, bytes);
  if (status == ncclSuccess && pointer != nullptr) return pointer;
  // A failed cuMemCreate comes back as ncclUnhandledCudaError: call it out of memory when the GPU
  // has not the room or NCCL says so, so that the case is an oom row and the sweep goes on.
  const std::string detail = nccl_last_error();
  std::size_t free_bytes = 0, total_bytes = 0;
  const bool measured = cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess;
  cudaGetLastError();  // ncclMemAlloc's cudaMalloc fallback leaves a non-sticky error behind
  const bool out_of_memory =
      (measured && free_bytes < bytes) || detail.find("out of memory") != std::string::npos;
  throw GpuError(
      fmt::format("ncclMemAlloc({} bytes) failed: {}{} [rank {}, GPU {}, {} bytes free]", bytes,
                  ncclGetErrorString(status), detail, current_rank(), device, free_bytes),
      out_of_memory);
}

std::size_t round_up(std::size_t bytes, std::size_t granularity) {
  return (bytes + granularity - 1) / granularity * granularity;
}

}  // namespace

void NcclMemoryTraits::release(void* pointer, int device) {
  ScopedDevice on(device);
  const ncclResult_t status = ncclMemFree(pointer);
  if (status != ncclSuccess) {
    std::fprintf(stderr, "collbench: warning: ncclMemFree failed on GPU %d: %s\n", device,
                 ncclGetErrorString(status));
  }
}

NcclMemory::NcclMemory(int device, std::size_t bytes) {
  const std::size_t rounded = round_up(bytes == 0 ? 1 : bytes, nccl_allocation_granularity(device));
  static_cast<DeviceHandle&>(*this) = DeviceHandle(allocate_nccl_memory(device, rounded), device);
  bytes_ = rounded;
}

std::size_t nccl_allocation_granularity(int device) {
  using GranularityFunction =
      CUresult (*)(std::size_t * granularity, const CUmemAllocationProp* prop,
                   CUmemAllocationGranularity_flags option);
  static const auto function =
      driver_function<GranularityFunction>("cuMemGetAllocationGranularity");
  CUmemAllocationProp prop;
  std::memset(&prop, 0, sizeof(prop));
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  std::size_t granularity = 0;
  const CUresult status = function(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED);
  if (status != CUDA_SUCCESS || granularity == 0) {
    throw GpuError(
        fmt::format("cuMemGetAllocationGranularity failed with CUresult {} [rank {}, GPU {}]",
                    static_cast<int>(status), current_rank(), device),
        false);
  }
  return granularity;
}

void LocalRegistrationTraits::release(ncclComm_t comm, void* handle, int device,
                                      int rank) noexcept {
  ScopedDevice on(device, rank);
  const ncclResult_t status = ncclCommDeregister(comm, handle);
  if (status != ncclSuccess) {
    std::fprintf(stderr, "collbench: warning: ncclCommDeregister failed on rank %d: %s\n", rank,
                 ncclGetErrorString(status));
  }
}

void WindowTraits::release(ncclComm_t comm, ncclWindow_t window, int device, int rank) noexcept {
  if (ncclCommWindowDeregister == nullptr) return;  // never made: no window without the call
  ScopedDevice on(device, rank);
  const ncclResult_t status = ncclCommWindowDeregister(comm, window);
  if (status != ncclSuccess) {
    std::fprintf(stderr, "collbench: warning: ncclCommWindowDeregister failed on rank %d: %s\n",
                 rank, ncclGetErrorString(status));
  }
}

NcclRegistration::NcclRegistration(ncclComm_t comm, void* pointer, std::size_t bytes, int device,
                                   int rank) {
  ScopedDevice on(device, rank);
  void* handle = nullptr;
  CB_NCCL_CHECK(ncclCommRegister(comm, pointer, bytes, &handle));
  static_cast<CommunicatorHandle&>(*this) = CommunicatorHandle(comm, handle, device, rank);
}

std::vector<NcclWindow> register_symmetric_windows(const std::vector<WindowRequest>& requests) {
  if (requests.empty()) return {};
  if (ncclCommWindowRegister == nullptr || ncclCommWindowDeregister == nullptr) {
    throw GpuError(
        "ncclCommWindowRegister is not in this NCCL library (symmetric windows came with NCCL "
        "2.27)",
        false);
  }
  std::vector<ncclWindow_t> handles(requests.size(), nullptr);
  std::vector<NcclWindow>
      windows;  // destroyed on the way out of a failure: deregisters what was made
  windows.reserve(requests.size());
  const auto adopt_made = [&] {
    for (std::size_t i = 0; i < requests.size(); ++i) {
      windows.emplace_back(requests[i].comm, handles[i], requests[i].device, requests[i].rank);
    }
  };
  try {
    NcclGroupScope group;
    for (std::size_t i = 0; i < requests.size(); ++i) {
      const WindowRequest& request = requests[i];
      ScopedDevice on(request.device, request.rank);
      CB_NCCL_CHECK(ncclCommWindowRegister(request.comm, request.pointer, request.bytes,
                                           &handles[i], NCCL_WIN_COLL_SYMMETRIC));
    }
    group.end();  // the windows are made here, each rank waiting for its peers
  } catch (const GpuError&) {
    adopt_made();
    throw;
  }
  adopt_made();
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (handles[i] == nullptr) {
      throw GpuError(
          fmt::format("ncclCommWindowRegister({} bytes) made no window: the communicator has no "
                      "symmetric-memory support and NCCL_LOCAL_REGISTER=0 [rank {}, GPU {}]",
                      requests[i].bytes, requests[i].rank, requests[i].device),
          false);
    }
  }
  return windows;
}

int nccl_runtime_version_code() {
  static const int code = [] {
    int version = 0;
    CB_NCCL_CHECK(ncclGetVersion(&version));
    return version;
  }();
  return code;
}

}  // namespace collbench
