// CUDA driver API functions reached through the runtime's driver entry points: collbench links
// only the runtime, so that binaries still start (and GPU tests skip) where no driver is installed.
#pragma once

namespace collbench {

// The address of driver function `name` at the CUDA 12.0 ABI (cudaGetDriverEntryPointByVersion
// with version 12000). Throws GpuError naming the function when the driver does not provide it.
void* driver_entry_point(const char* name);

// The same, as a pointer to the function's type.
template <typename Function>
Function driver_function(const char* name) {
  return reinterpret_cast<Function>(driver_entry_point(name));
}

}  // namespace collbench
