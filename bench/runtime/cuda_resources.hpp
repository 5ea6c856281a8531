// Move-only owners of CUDA resources (device memory, streams, events, graphs) and a scoped
// device guard. Each owner remembers its device so it can be released from any thread.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "core/errors.hpp"

namespace collbench {

// Makes `device` current (and names `rank` in errors) for the scope; restores both on exit.
class ScopedDevice {
 public:
  explicit ScopedDevice(int device, int rank = -1);
  ~ScopedDevice();
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;

 private:
  int previous_device_ = 0;
  int previous_rank_ = -1;
};

// Base for owners of one handle on one device: move-only, released by Traits::release.
template <typename Handle, typename Traits>
class DeviceHandle {
 public:
  DeviceHandle() = default;
  DeviceHandle(Handle handle, int device) : handle_(handle), device_(device) {}
  ~DeviceHandle() { reset(); }
  DeviceHandle(DeviceHandle&& other) noexcept
      : handle_(std::exchange(other.handle_, Handle{})), device_(other.device_) {}
  DeviceHandle& operator=(DeviceHandle&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, Handle{});
      device_ = other.device_;
    }
    return *this;
  }
  DeviceHandle(const DeviceHandle&) = delete;
  DeviceHandle& operator=(const DeviceHandle&) = delete;

  Handle get() const { return handle_; }
  int device() const { return device_; }
  explicit operator bool() const { return handle_ != Handle{}; }
  void reset() {
    if (handle_ != Handle{}) Traits::release(handle_, device_);
    handle_ = Handle{};
  }
  // Gives the handle up without releasing it: for memory a hung kernel may still use, which
  // cudaFree would wait for forever; the process's end reclaims it.
  Handle abandon() noexcept { return std::exchange(handle_, Handle{}); }

 private:
  Handle handle_{};
  int device_ = -1;
};

struct DeviceMemoryTraits {
  static void release(void* pointer, int device);
};
struct StreamTraits {
  static void release(cudaStream_t stream, int device);
};
struct EventTraits {
  static void release(cudaEvent_t event, int device);
};
struct GraphTraits {
  static void release(cudaGraph_t graph, int device);
};
struct GraphExecTraits {
  static void release(cudaGraphExec_t exec, int device);
};

// Device memory from cudaMalloc on one device.
class DeviceBuffer : public DeviceHandle<void*, DeviceMemoryTraits> {
 public:
  DeviceBuffer() = default;
  // Allocates `bytes` on `device`; throws GpuError (out_of_memory() set) when it cannot.
  DeviceBuffer(int device, std::size_t bytes);
  std::size_t bytes() const { return bytes_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(get());
  }

 private:
  std::size_t bytes_ = 0;
};

class Stream : public DeviceHandle<cudaStream_t, StreamTraits> {
 public:
  Stream() = default;
  // A non-blocking stream on `device`, so the legacy default stream never serialises with it.
  explicit Stream(int device);
};

class Event : public DeviceHandle<cudaEvent_t, EventTraits> {
 public:
  Event() = default;
  // A timing event on `device`.
  explicit Event(int device);
};

using Graph = DeviceHandle<cudaGraph_t, GraphTraits>;
using GraphExec = DeviceHandle<cudaGraphExec_t, GraphExecTraits>;

// Milliseconds between two events recorded on the same device.
float elapsed_ms(const Event& start, const Event& stop);

// The CUDA GPUs this process sees; 0 without a driver or a device (not an error).
int visible_gpu_count();

}  // namespace collbench
