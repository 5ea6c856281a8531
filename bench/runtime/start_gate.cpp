// The start gate's words, rounds and waits.
#include "runtime/start_gate.hpp"

#include <algorithm>
#include <cmath>
#include <new>
#include <utility>

#include "runtime/cuda_resources.hpp"

namespace collbench {
namespace {

kernels::StartGateWords* allocate_pinned_words() {
  void* words = nullptr;
  CB_CUDA_CHECK(cudaHostAlloc(&words, sizeof(kernels::StartGateWords),
                              cudaHostAllocMapped | cudaHostAllocPortable));
  return new (words) kernels::StartGateWords{};
}

}  // namespace

void StartGate::PinnedFree::operator()(kernels::StartGateWords* words) const {
  CB_CUDA_CHECK_NOTHROW(cudaFreeHost(words));
}

StartGate::StartGate() : pinned_(allocate_pinned_words()), words_(pinned_.get()) {}

StartGate::StartGate(const HostSharedMemory& shared, kernels::StartGateWords* slot)
    : shared_(&shared), words_(slot) {}

StartGate StartGate::disabled() {
  return StartGate(Disabled{});
}

StartGate::StartGate(StartGate&& other) noexcept
    : pinned_(std::move(other.pinned_)),
      shared_(other.shared_),
      words_(std::exchange(other.words_, nullptr)),
      last_ticket_(other.last_ticket_) {}

StartGate::~StartGate() {
  abort();
}

std::uint64_t StartGate::next_round(int ranks_on_host) {
  last_ticket_ += static_cast<std::uint64_t>(std::max(ranks_on_host, 0));
  return last_ticket_;
}

void StartGate::hold(int device, cudaStream_t stream, std::uint64_t ticket,
                     double timeout_s) const {
  if (!words_) return;
  void* view = words_;
  if (shared_) {
    view = shared_->device_view(words_, device);
  } else {
    ScopedDevice on(device);
    CB_CUDA_CHECK(cudaHostGetDevicePointer(&view, words_, 0));
  }
  const double timeout_ns = std::min(std::max(timeout_s, 0.0) * 1e9, 1e15);
  CB_CUDA_CHECK(kernels::launch_wait_for_gate(static_cast<kernels::StartGateWords*>(view), ticket,
                                              static_cast<std::uint64_t>(timeout_ns), stream));
}

void StartGate::arrive(int ranks) const {
  if (!words_ || ranks <= 0) return;
  // Release: the work this thread enqueued is ordered before the gate opens (the GPU reads with
  // acquire); the memory is shared with other processes of the host, so the add is atomic.
  __atomic_fetch_add(&words_->arrived, static_cast<std::uint64_t>(ranks), __ATOMIC_RELEASE);
}

bool StartGate::is_open(std::uint64_t ticket) const {
  if (!words_) return true;
  return __atomic_load_n(&words_->arrived, __ATOMIC_ACQUIRE) >= ticket ||
         __atomic_load_n(&words_->abort, __ATOMIC_ACQUIRE) != 0;
}

void StartGate::abort() noexcept {
  if (words_) __atomic_store_n(&words_->abort, 1, __ATOMIC_RELEASE);
}

void StartGate::check() const {
  if (words_ && __atomic_load_n(&words_->timed_out, __ATOMIC_ACQUIRE) != 0) {
    throw GpuError(
        "start gate: a stream waited past its timeout for every rank to enqueue its work", false);
  }
}

}  // namespace collbench
