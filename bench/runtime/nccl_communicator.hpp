// Move-only owner of one NCCL communicator; destroyed normally, or aborted after a failure so
// that no rank waits forever on a peer that will never come.
#pragma once

#include <nccl.h>

#include <string>
#include <vector>

namespace collbench {

class NcclCommunicator {
 public:
  NcclCommunicator(ncclComm_t comm, int device, int rank) : comm_(comm), device_(device), rank_(rank) {}
  ~NcclCommunicator();
  NcclCommunicator(NcclCommunicator&& other) noexcept;
  NcclCommunicator& operator=(NcclCommunicator&&) = delete;
  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;

  ncclComm_t get() const { return comm_; }
  int device() const { return device_; }
  int rank() const { return rank_; }
  // Aborts now (ncclCommAbort): pending operations are cancelled. Safe to call twice.
  void abort() noexcept;
  // Throws GpuError when NCCL reports an asynchronous error on this communicator.
  void check_async_error() const;

 private:
  ncclComm_t comm_ = nullptr;
  int device_ = -1;
  int rank_ = -1;
};

// One communicator per device, ranks in `devices` order, from one process (ncclCommInitAll).
std::vector<NcclCommunicator> create_single_process_communicators(const std::vector<int>& devices);

// "2.28.3" for the NCCL library loaded at run time.
std::string nccl_runtime_version();

}  // namespace collbench
