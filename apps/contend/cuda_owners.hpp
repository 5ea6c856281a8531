// Owners of the CUDA resources collbench_contend uses: each frees what it made when it goes, and
// its constructor throws LoadError naming the call and GPU when it cannot make it.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

namespace collbench::contend {

// The number of visible GPUs; throws NoGpuError when there is none (or no driver).
int visible_gpu_count();

// Throws UsageError "OPTION VALUE: no GPU N (M visible)" when GPU `gpu` is not visible.
void require_gpu(int gpu, const std::string& option, const std::string& value);

// Makes `gpu` current for a scope, then restores the previous device.
class DeviceGuard {
 public:
  explicit DeviceGuard(int gpu);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = 0;
};

class DeviceBuffer {
 public:
  DeviceBuffer(int gpu, std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* get() const { return pointer_; }

 private:
  int gpu_;
  void* pointer_ = nullptr;
};

// A stream that does not synchronize with the legacy default stream.
class Stream {
 public:
  explicit Stream(int gpu);
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  int gpu_;
  cudaStream_t stream_ = nullptr;
};

// An event whose wait blocks the thread instead of spinning on a core (a load on the GPU must not
// also be a load on the CPU), without timing.
class Event {
 public:
  explicit Event(int gpu);
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  int gpu_;
  cudaEvent_t event_ = nullptr;
};

// Lets `gpu` read and write `peer`'s memory for a scope. Access another owner enabled is used
// and left enabled; throws LoadError when the GPUs have no peer path.
class PeerAccess {
 public:
  PeerAccess(int gpu, int peer);
  ~PeerAccess();
  PeerAccess(const PeerAccess&) = delete;
  PeerAccess& operator=(const PeerAccess&) = delete;

 private:
  int gpu_;
  int peer_;
  bool owned_ = false;
};

}  // namespace collbench::contend
