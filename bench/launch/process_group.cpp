// World communicator creation and splitting.
#include "launch/process_group.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "runtime/cuda_resources.hpp"
#include "core/errors.hpp"
#include "launch/exit_deadline.hpp"
#include "launch/mpi_bootstrap.hpp"
#include "runtime/process_all_gather.hpp"
#include "sweep/runner.hpp"

namespace collbench {
namespace {

constexpr double kMinInitTimeoutS = 60;

// One GPU per process: the local rank's GPU, or the only GPU when the launcher restricted
// CUDA_VISIBLE_DEVICES to one per process.
int pick_device(int local_rank) {
  const int visible = visible_gpu_count();
  if (visible == 0) throw UsageError("no CUDA GPU is visible to this process");
  if (visible == 1) return 0;
  if (local_rank >= visible) {
    throw UsageError(fmt::format("local rank {} has no GPU: only {} are visible on this node", local_rank, visible));
  }
  return local_rank;
}

// Distinct hosts among the world's processes, from an all-gather of host-name hashes.
int count_nodes(const NcclCommunicator& world, int size) {
  Stream stream(world.device());
  const RankContext context{world.rank(), world.device(), stream.get(), world.get()};
  std::vector<std::uint64_t> all = all_gather_records(context, this_host_hash(), size, 0);
  std::sort(all.begin(), all.end());
  return static_cast<int>(std::unique(all.begin(), all.end()) - all.begin());
}

}  // namespace

std::uint64_t this_host_hash() {
  char name[256] = {};
  gethostname(name, sizeof(name) - 1);
  return std::hash<std::string>{}(name);
}

ProcessGroup::ProcessGroup(const LaunchEnvironment& environment, double init_timeout_s)
    : mode_(environment.mode), rank_(environment.world_rank), size_(environment.world_size) {
  ncclUniqueId id{};
  if (mode_ == LaunchMode::mpi) {
    mpi_start(rank_, size_);
    device_ = pick_device(environment.local_rank);
    CB_CUDA_CHECK(cudaSetDevice(device_));
    id = mpi_share_unique_id(rank_);
  } else {
    // NCCL_COMM_ID makes every process's ncclGetUniqueId return the same id; rank 0 serves it.
    setenv("NCCL_COMM_ID", environment.nccl_comm_id.c_str(), 1);
    device_ = pick_device(environment.local_rank);
    CB_CUDA_CHECK(cudaSetDevice(device_));
    CB_NCCL_CHECK(ncclGetUniqueId(&id));
  }
  set_current_rank(rank_);
  ncclComm_t comm = nullptr;
  {
    // Joining may rightly take a while (launcher start-up skew, NCCL init on many GPUs): never
    // less than a minute, even when cases may only take seconds.
    init_timeout_s = std::max(init_timeout_s, kMinInitTimeoutS);
    const ExitDeadline deadline(
        init_timeout_s,
        fmt::format("rank {} of {}: the processes did not all join the world communicator within "
                    "{} s (ncclCommInitRank); check that every rank started and has a GPU",
                    rank_, size_, init_timeout_s));
    CB_NCCL_CHECK(ncclCommInitRank(&comm, size_, id, rank_));
  }
  world_ = std::make_unique<NcclCommunicator>(comm, device_, rank_);
  nodes_ = count_nodes(*world_, size_);
}

ProcessGroup::~ProcessGroup() {
  world_.reset();
  // MPI_Finalize waits for every process (OpenMPI fences them), and after an abort one of them
  // may never come: leaving without it makes the launcher end the whole job instead of hanging.
  if (mode_ == LaunchMode::mpi && !aborted_) mpi_stop();
}

std::optional<NcclCommunicator> ProcessGroup::split_first(int ranks, ncclConfig_t* config) {
  ScopedDevice on(device_, rank_);
  ncclComm_t comm = nullptr;
  const int color = rank_ < ranks ? 0 : NCCL_SPLIT_NOCOLOR;
  CB_NCCL_CHECK(ncclCommSplit(world_->get(), color, rank_, &comm, config));
  if (!comm) return std::nullopt;
  return std::optional<NcclCommunicator>(std::in_place, comm, device_, rank_);
}

void ProcessGroup::abort() noexcept {
  aborted_ = true;
  if (world_) world_->abort();
}

}  // namespace collbench
