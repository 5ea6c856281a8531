// The start gate's pinned flag words and their release order.
#include "start_gate.hpp"

#include "copy_kernels.hpp"
#include "core/errors.hpp"

namespace collbench::link_peak {
namespace {

// Far longer than enqueueing one round takes; a wait that runs out means the host died or hung.
constexpr unsigned long long kGateTimeoutNs = 30'000'000'000ull;

int* allocate_words() {
  void* words = nullptr;
  CB_CUDA_CHECK(
      cudaHostAlloc(&words, 2 * sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable));
  static_cast<int*>(words)[0] = 0;
  static_cast<int*>(words)[1] = 0;
  return static_cast<int*>(words);
}

}  // namespace

void StartGate::PinnedFree::operator()(int* words) const {
  CB_CUDA_CHECK_NOTHROW(cudaFreeHost(words));
}

StartGate::StartGate() : words_(allocate_words()) {}

StartGate::~StartGate() {
  // Any kernel still waiting must leave before cudaFreeHost (which waits for the GPUs).
  open();
}

void StartGate::hold(cudaStream_t stream) {
  // With unified addressing, mapped pinned memory has the same address on the host and every GPU.
  launch_wait_for_release(words_.get(), words_.get() + 1, kGateTimeoutNs, stream);
}

void StartGate::open() {
  __atomic_store_n(words_.get(), 1, __ATOMIC_RELEASE);
}

void StartGate::close() {
  const bool timed_out = __atomic_load_n(words_.get() + 1, __ATOMIC_ACQUIRE) != 0;
  __atomic_store_n(words_.get(), 0, __ATOMIC_RELEASE);
  if (timed_out) {
    __atomic_store_n(words_.get() + 1, 0, __ATOMIC_RELEASE);
    throw GpuError("start gate: a stream waited longer than 30 s for the host to open it", false);
  }
}

}  // namespace collbench::link_peak
