// The start gate's words, rounds and waits.
#include "runtime/start_gate.hpp"

#include <algorithm>
#include <new>
#include <utility>

#include "runtime/cuda_resources.hpp"

namespace collbench {
namespace {

template <typename T>
T* allocate_pinned() {
  void* memory = nullptr;
  CB_CUDA_CHECK(cudaHostAlloc(&memory, sizeof(T), cudaHostAllocMapped | cudaHostAllocPortable));
  return new (memory) T{};
}

// Where `host_address` (pinned, mapped, portable) is seen by `device`'s kernels.
void* device_view(void* host_address, int device) {
  ScopedDevice on(device);
  void* view = nullptr;
  CB_CUDA_CHECK(cudaHostGetDevicePointer(&view, host_address, 0));
  return view;
}

}  // namespace

template <typename T>
void StartGate::PinnedFree<T>::operator()(T* words) const {
  CB_CUDA_CHECK_NOTHROW(cudaFreeHost(words));
}

StartGate::StartGate()
    : process_abort_(allocate_pinned<int>()),
      pinned_(allocate_pinned<kernels::StartGateWords>()),
      words_(pinned_.get()) {}

StartGate::StartGate(std::shared_ptr<const HostSharedMemory> shared, kernels::StartGateWords* slot)
    : process_abort_(allocate_pinned<int>()), shared_(std::move(shared)), words_(slot) {}

StartGate StartGate::disabled() {
  return StartGate(Disabled{});
}

StartGate::StartGate(StartGate&& other) noexcept
    : process_abort_(std::move(other.process_abort_)),
      pinned_(std::move(other.pinned_)),
      shared_(std::move(other.shared_)),
      words_(std::exchange(other.words_, nullptr)),
      last_ticket_(other.last_ticket_) {}

StartGate::~StartGate() {
  release_here();
}

std::uint64_t StartGate::next_round(int ranks_on_host) {
  last_ticket_ += static_cast<std::uint64_t>(std::max(ranks_on_host, 0));
  return last_ticket_;
}

void StartGate::hold(int device, cudaStream_t stream, std::uint64_t ticket,
                     double timeout_s) const {
  if (!words_) return;
  void* words = shared_ ? shared_->device_view(words_, device) : device_view(words_, device);
  const double timeout_ns = std::min(std::max(timeout_s, 0.0) * 1e9, 1e15);
  CB_CUDA_CHECK(
      kernels::launch_wait_for_gate(static_cast<kernels::StartGateWords*>(words),
                                    static_cast<int*>(device_view(process_abort_.get(), device)),
                                    ticket, static_cast<std::uint64_t>(timeout_ns), stream));
}

void StartGate::arrive(int ranks) const {
  if (!words_ || ranks <= 0) return;
  // Release: the work this thread enqueued is ordered before the gate opens (the GPU reads with
  // acquire); the memory may be shared with other processes of the host, so the add is atomic.
  __atomic_fetch_add(&words_->arrived, static_cast<std::uint64_t>(ranks), __ATOMIC_RELEASE);
}

bool StartGate::is_open(std::uint64_t ticket) const {
  if (!words_) return true;
  return __atomic_load_n(&words_->arrived, __ATOMIC_ACQUIRE) >= ticket ||
         __atomic_load_n(&words_->abort, __ATOMIC_ACQUIRE) != 0 ||
         __atomic_load_n(process_abort_.get(), __ATOMIC_ACQUIRE) != 0;
}

void StartGate::abort() noexcept {
  if (words_) __atomic_store_n(&words_->abort, 1, __ATOMIC_RELEASE);
  release_here();
}

void StartGate::release_here() noexcept {
  if (process_abort_) __atomic_store_n(process_abort_.get(), 1, __ATOMIC_RELEASE);
}

void StartGate::check() const {
  if (words_ && __atomic_load_n(&words_->timed_out, __ATOMIC_ACQUIRE) != 0) {
    throw GpuError(
        "start gate: a stream waited past its timeout for every rank to enqueue its work", false);
  }
}

}  // namespace collbench
