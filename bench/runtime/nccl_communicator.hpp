// Move-only owner of one NCCL communicator; destroyed normally, or aborted after a failure so
// that no rank waits forever on a peer that will never come.
#pragma once

#include <nccl.h>

#include <string>
#include <vector>

#include "core/algorithm.hpp"

namespace collbench {

class NcclCommunicator {
 public:
  NcclCommunicator(ncclComm_t comm, int device, int rank)
      : comm_(comm), device_(device), rank_(rank) {}
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

// Throws GpuError, naming `rank` and `device`, when NCCL reports an asynchronous error on `comm`;
// nothing for a null communicator.
void check_nccl_async_error(ncclComm_t comm, int device, int rank);

// One communicator per device, ranks in `devices` order, from one process: ncclCommInitAll, or
// with `config` (maxCTAs ...) ncclCommInitRankConfig for every device inside one group.
std::vector<NcclCommunicator> create_single_process_communicators(
    const std::vector<int>& devices, const ncclConfig_t* config = nullptr);

// ncclCommSplit of each of this process's communicators, all inside one group (one process may
// hold several ranks): parents[i] joins the group of colors[i] (NCCL_SPLIT_NOCOLOR: none, its
// communicator is null), ordered by keys[i], or by its rank when `keys` is empty. `config` applies
// to the new communicators; null inherits the parents'. Each new communicator keeps its parent's
// rank as the rank its errors name (ncclCommUserRank gives its group rank).
std::vector<NcclCommunicator> split_communicators(const std::vector<NcclCommunicator>& parents,
                                                  const std::vector<int>& colors,
                                                  const ncclConfig_t* config,
                                                  const std::vector<int>& keys = {});
// The same from communicators owned elsewhere (a rank set's): each context's comm, device and
// rank (the rank its errors name).
std::vector<NcclCommunicator> split_communicators(const std::vector<RankContext>& parents,
                                                  const std::vector<int>& colors,
                                                  const ncclConfig_t* config,
                                                  const std::vector<int>& keys = {});

// "2.28.3" for the NCCL library loaded at run time.
std::string nccl_runtime_version();

}  // namespace collbench
