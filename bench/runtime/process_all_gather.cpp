// The NCCL all-gather of host records between processes.
#include "runtime/process_all_gather.hpp"

#include "core/errors.hpp"
#include "runtime/completion_wait.hpp"
#include "runtime/cuda_resources.hpp"

namespace collbench {

std::vector<unsigned char> all_gather_host_bytes(const RankContext& rank, const void* mine,
                                                 std::size_t bytes, int nranks, double timeout_s) {
  ScopedDevice on(rank.device, rank.rank);
  DeviceBuffer gathered(rank.device, bytes * nranks);
  unsigned char* slot = gathered.as<unsigned char>() + bytes * rank.rank;
  CB_CUDA_CHECK(cudaMemcpyAsync(slot, mine, bytes, cudaMemcpyHostToDevice, rank.stream));
  CB_NCCL_CHECK(ncclAllGather(slot, gathered.get(), bytes, ncclUint8, rank.comm, rank.stream));
  // Polled: a peer process that died becomes an error, not a hang. The all-gather may still be
  // running then, so its buffer is abandoned, not freed.
  try {
    wait_for_completion({stream_target(rank)}, WaitDeadline::after(timeout_s > 0 ? timeout_s : 1e9),
                        "the all-gather of host records");
  } catch (...) {
    gathered.abandon();
    throw;
  }
  std::vector<unsigned char> host(bytes * nranks);
  CB_CUDA_CHECK(cudaMemcpy(host.data(), gathered.get(), host.size(), cudaMemcpyDeviceToHost));
  return host;
}

}  // namespace collbench
