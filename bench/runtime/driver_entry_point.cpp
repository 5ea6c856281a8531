// Driver API entry points through the runtime (see driver_entry_point.hpp).
#include "runtime/driver_entry_point.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include "core/errors.hpp"

namespace collbench {

void* driver_entry_point(const char* name) {
  void* entry = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  CB_CUDA_CHECK(cudaGetDriverEntryPointByVersion(name, &entry, 12000, cudaEnableDefault, &found));
  if (found != cudaDriverEntryPointSuccess || entry == nullptr) {
    throw GpuError(
        fmt::format("cudaGetDriverEntryPointByVersion({}): not provided by this driver", name),
        false);
  }
  return entry;
}

}  // namespace collbench
