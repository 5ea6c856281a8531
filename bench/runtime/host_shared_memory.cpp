// Mapping and registering a POSIX shared-memory segment.
#include "runtime/host_shared_memory.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/cuda_resources.hpp"

namespace collbench {
namespace {

[[noreturn]] void throw_system_error(const std::string& what, const std::string& name) {
  throw GpuError(
      fmt::format("{} of shared memory '{}' failed: {}", what, name, std::strerror(errno)), false);
}

}  // namespace

HostSharedMemory::HostSharedMemory(std::string name, std::size_t bytes)
    : name_(std::move(name)), bytes_(bytes) {
  const int fd = shm_open(name_.c_str(), O_CREAT | O_RDWR, 0600);
  if (fd < 0) throw_system_error("shm_open", name_);
  // Every process sets the same length; a new segment reads as zeros.
  if (ftruncate(fd, static_cast<off_t>(bytes_)) != 0) {
    close(fd);
    throw_system_error("ftruncate", name_);
  }
  memory_ = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (memory_ == MAP_FAILED) {
    memory_ = nullptr;
    throw_system_error("mmap", name_);
  }
  try {
    CB_CUDA_CHECK(
        cudaHostRegister(memory_, bytes_, cudaHostRegisterMapped | cudaHostRegisterPortable));
  } catch (...) {
    cudaGetLastError();  // the failed registration must not pass for the next call's error
    munmap(memory_, bytes_);
    throw;
  }
  registered_ = true;
}

HostSharedMemory::~HostSharedMemory() {
  if (registered_) CB_CUDA_CHECK_NOTHROW(cudaHostUnregister(memory_));
  if (memory_) munmap(memory_, bytes_);
}

void HostSharedMemory::unlink() noexcept {
  shm_unlink(name_.c_str());  // ENOENT: another process of the host removed it first
}

void* HostSharedMemory::device_view(const void* host_address, int device) const {
  ScopedDevice on(device);
  void* view = nullptr;
  CB_CUDA_CHECK(cudaHostGetDevicePointer(&view, const_cast<void*>(host_address), 0));
  return view;
}

}  // namespace collbench
