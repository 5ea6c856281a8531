// Creation and release of the CUDA resource owners.
#include "runtime/cuda_resources.hpp"

namespace collbench {

ScopedDevice::ScopedDevice(int device, int rank) : previous_rank_(current_rank()) {
  CB_CUDA_CHECK(cudaGetDevice(&previous_device_));
  CB_CUDA_CHECK(cudaSetDevice(device));
  if (rank >= 0) set_current_rank(rank);
}

ScopedDevice::~ScopedDevice() {
  CB_CUDA_CHECK_NOTHROW(cudaSetDevice(previous_device_));
  set_current_rank(previous_rank_);
}

void DeviceMemoryTraits::release(void* pointer, int device) {
  ScopedDevice on(device);
  CB_CUDA_CHECK_NOTHROW(cudaFree(pointer));
}
void StreamTraits::release(cudaStream_t stream, int device) {
  ScopedDevice on(device);
  CB_CUDA_CHECK_NOTHROW(cudaStreamDestroy(stream));
}
void EventTraits::release(cudaEvent_t event, int device) {
  ScopedDevice on(device);
  CB_CUDA_CHECK_NOTHROW(cudaEventDestroy(event));
}
void GraphTraits::release(cudaGraph_t graph, int device) {
  ScopedDevice on(device);
  CB_CUDA_CHECK_NOTHROW(cudaGraphDestroy(graph));
}
void GraphExecTraits::release(cudaGraphExec_t exec, int device) {
  ScopedDevice on(device);
  CB_CUDA_CHECK_NOTHROW(cudaGraphExecDestroy(exec));
}

namespace {
void* allocate(int device, std::size_t bytes) {
  ScopedDevice on(device);
  void* pointer = nullptr;
  // cudaMalloc(0) returns null; keep one byte so an empty case still has a valid address.
  CB_CUDA_CHECK(cudaMalloc(&pointer, bytes == 0 ? 1 : bytes));
  return pointer;
}
cudaStream_t create_stream(int device) {
  ScopedDevice on(device);
  cudaStream_t stream = nullptr;
  CB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  return stream;
}
cudaEvent_t create_event(int device) {
  ScopedDevice on(device);
  cudaEvent_t event = nullptr;
  CB_CUDA_CHECK(cudaEventCreate(&event));
  return event;
}
}  // namespace

DeviceBuffer::DeviceBuffer(int device, std::size_t bytes)
    : DeviceHandle(allocate(device, bytes), device), bytes_(bytes) {}
Stream::Stream(int device) : DeviceHandle(create_stream(device), device) {}
Event::Event(int device) : DeviceHandle(create_event(device), device) {}

float elapsed_ms(const Event& start, const Event& stop) {
  float ms = 0;
  CB_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return ms;
}

int visible_gpu_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // no driver or no device: zero GPUs, not an error
    return 0;
  }
  return count;
}

}  // namespace collbench
