// NCCL communicator ownership: creation for one process driving several GPUs, destroy, abort.
#include "runtime/nccl_communicator.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <optional>
#include <utility>

#include "core/errors.hpp"
#include "runtime/cuda_resources.hpp"
#include "runtime/nccl_group.hpp"

namespace collbench {

NcclCommunicator::~NcclCommunicator() {
  if (!comm_) return;
  ScopedDevice on(device_, rank_);
  const ncclResult_t status = ncclCommDestroy(comm_);
  if (status != ncclSuccess) {
    std::fprintf(stderr, "collbench: warning: ncclCommDestroy failed on rank %d: %s\n", rank_,
                 ncclGetErrorString(status));
  }
}

NcclCommunicator::NcclCommunicator(NcclCommunicator&& other) noexcept
    : comm_(std::exchange(other.comm_, nullptr)), device_(other.device_), rank_(other.rank_) {}

void NcclCommunicator::abort() noexcept {
  if (!comm_) return;
  ncclCommAbort(comm_);  // nothing useful to do if abort itself fails
  comm_ = nullptr;
}

void NcclCommunicator::check_async_error() const {
  check_nccl_async_error(comm_, device_, rank_);
}

void check_nccl_async_error(ncclComm_t comm, int device, int rank) {
  if (!comm) return;
  ncclResult_t async_error = ncclSuccess;
  CB_NCCL_CHECK(ncclCommGetAsyncError(comm, &async_error));
  if (async_error != ncclSuccess && async_error != ncclInProgress) {
    ScopedDevice on(device, rank);
    throw_nccl_error(async_error, "ncclCommGetAsyncError (asynchronous failure)", __FILE__,
                     __LINE__);
  }
}

namespace {

// Communicators made inside one NCCL group, not owned yet: if the group fails part way, those
// already made are aborted rather than leaked. release() hands them over on success.
class PendingCommunicators {
 public:
  explicit PendingCommunicators(std::size_t count) : comms_(count, nullptr) {}
  ~PendingCommunicators() {
    for (ncclComm_t comm : comms_) {
      if (comm) ncclCommAbort(comm);  // a destructor reports nothing; the failure is on its way up
    }
  }
  PendingCommunicators(const PendingCommunicators&) = delete;
  PendingCommunicators& operator=(const PendingCommunicators&) = delete;
  ncclComm_t* data() { return comms_.data(); }
  ncclComm_t& operator[](std::size_t i) { return comms_[i]; }
  std::vector<ncclComm_t> release() { return std::exchange(comms_, {}); }

 private:
  std::vector<ncclComm_t> comms_;
};

}  // namespace

std::vector<NcclCommunicator> create_single_process_communicators(const std::vector<int>& devices,
                                                                  const ncclConfig_t* config) {
  const int count = static_cast<int>(devices.size());
  PendingCommunicators pending(devices.size());
  if (config == nullptr) {
    CB_NCCL_CHECK(ncclCommInitAll(pending.data(), count, devices.data()));
  } else {
    // What ncclCommInitAll does, with a config: one unique id, every rank initialised in one group.
    ncclUniqueId id;
    CB_NCCL_CHECK(ncclGetUniqueId(&id));
    NcclGroupScope group;
    for (int rank = 0; rank < count; ++rank) {
      ScopedDevice on(devices[rank], rank);
      ncclConfig_t rank_config = *config;
      CB_NCCL_CHECK(ncclCommInitRankConfig(&pending[rank], count, id, rank, &rank_config));
    }
    group.end();
  }
  const std::vector<ncclComm_t> comms = pending.release();
  std::vector<NcclCommunicator> owned;
  owned.reserve(devices.size());
  for (std::size_t rank = 0; rank < devices.size(); ++rank) {
    owned.emplace_back(comms[rank], devices[rank], static_cast<int>(rank));
  }
  return owned;
}

std::vector<NcclCommunicator> split_communicators(const std::vector<NcclCommunicator>& parents,
                                                  const std::vector<int>& colors,
                                                  const ncclConfig_t* config,
                                                  const std::vector<int>& keys) {
  std::vector<RankContext> contexts;
  for (const NcclCommunicator& parent : parents)
    contexts.push_back({parent.rank(), parent.device(), nullptr, parent.get()});
  return split_communicators(contexts, colors, config, keys);
}

std::vector<NcclCommunicator> split_communicators(const std::vector<RankContext>& parents,
                                                  const std::vector<int>& colors,
                                                  const ncclConfig_t* config,
                                                  const std::vector<int>& keys) {
  PendingCommunicators pending(parents.size());
  {
    NcclGroupScope group;
    for (std::size_t i = 0; i < parents.size(); ++i) {
      ScopedDevice on(parents[i].device, parents[i].rank);
      std::optional<ncclConfig_t> split_config;
      if (config != nullptr) split_config = *config;
      const int key = keys.empty() ? parents[i].rank : keys[i];
      CB_NCCL_CHECK(ncclCommSplit(parents[i].comm, colors[i], key, &pending[i],
                                  split_config ? &*split_config : nullptr));
    }
    group.end();
  }
  const std::vector<ncclComm_t> comms = pending.release();
  std::vector<NcclCommunicator> owned;
  owned.reserve(parents.size());
  for (std::size_t i = 0; i < parents.size(); ++i) {
    owned.emplace_back(comms[i], parents[i].device, parents[i].rank);
  }
  return owned;
}

std::string nccl_runtime_version() {
  int code = 0;
  CB_NCCL_CHECK(ncclGetVersion(&code));
  // NCCL >= 2.9 encodes major*10000 + minor*100 + patch.
  return fmt::format("{}.{}.{}", code / 10000, (code % 10000) / 100, code % 100);
}

}  // namespace collbench
