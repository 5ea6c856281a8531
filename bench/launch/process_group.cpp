// World communicator creation and splitting.
#include "launch/process_group.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <random>
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

// What every process tells the others once the world exists: its host, and (from rank 0) the
// token that names this run's shared memory on every host.
struct JoinRecord {
  std::uint64_t host_hash = 0;
  std::uint64_t token = 0;
};

std::vector<JoinRecord> exchange_join_records(const NcclCommunicator& world, int size) {
  Stream stream(world.device());
  const RankContext context{world.rank(), world.device(), stream.get(), world.get()};
  JoinRecord mine{this_host_hash(), 0};
  if (world.rank() == 0) mine.token = std::random_device{}() ^ (std::uint64_t{std::random_device{}()} << 32);
  return all_gather_records(context, mine, size, 0);
}

// Every process's flag, once all have come (an all-gather on the world, so also a barrier).
std::vector<std::uint8_t> gather_flags(const NcclCommunicator& world, int size, bool flag) {
  Stream stream(world.device());
  const RankContext context{world.rank(), world.device(), stream.get(), world.get()};
  return all_gather_records(context, std::uint8_t{flag ? std::uint8_t{1} : std::uint8_t{0}}, size, 0);
}

// Slots for start gates: one per rank set a run makes (a sweep makes one per GPU count and
// communicator setting), far more than any run needs.
constexpr std::size_t kGateSlots = 4096;

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
  const std::vector<JoinRecord> joined = exchange_join_records(*world_, size_);
  std::vector<std::uint64_t> hosts;
  for (const JoinRecord& record : joined) {
    const auto found = std::find(hosts.begin(), hosts.end(), record.host_hash);
    host_of_rank_.push_back(static_cast<int>(found - hosts.begin()));
    if (found == hosts.end()) hosts.push_back(record.host_hash);
  }
  nodes_ = static_cast<int>(hosts.size());
  open_gate_memory(joined.front().token);
}

void ProcessGroup::open_gate_memory(std::uint64_t token) {
  try {
    gate_memory_ = std::make_unique<HostSharedMemory>(fmt::format("/collbench-{:016x}", token),
                                                      kGateSlots * sizeof(kernels::StartGateWords));
  } catch (const GpuError& error) {
    fmt::print(stderr, "collbench: warning: rank {}: no start gate across processes ({}); timed work starts as "
               "each process enqueues it\n", rank_, error.what());
  }
  // Every process has opened the segment (or failed to) before any removes its name. A gate is
  // shared by the processes of a host, so one that failed takes it from all of them: the others
  // would otherwise wait at every round for a rank that never arrives.
  const std::vector<std::uint8_t> opened = gather_flags(*world_, size_, gate_memory_ != nullptr);
  if (gate_memory_) gate_memory_->unlink();
  for (int rank = 0; rank < size_; ++rank) {
    if (host_of_rank_[rank] == host_of_rank_[rank_] && !opened[rank]) gate_memory_.reset();
  }
}

kernels::StartGateWords* ProcessGroup::next_gate_slot() {
  const std::size_t slot = next_gate_slot_++;
  if (!gate_memory_ || slot >= kGateSlots) return nullptr;
  return static_cast<kernels::StartGateWords*>(gate_memory_->host()) + slot;
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
