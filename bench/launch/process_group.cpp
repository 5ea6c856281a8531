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

#include "core/errors.hpp"
#include "launch/exit_deadline.hpp"
#include "launch/mpi_bootstrap.hpp"
#include "runtime/cuda_resources.hpp"
#include "runtime/process_all_gather.hpp"

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
    throw UsageError(fmt::format("local rank {} has no GPU: only {} are visible on this node",
                                 local_rank, visible));
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
  if (world.rank() == 0)
    mine.token = std::random_device{}() ^ (std::uint64_t{std::random_device{}()} << 32);
  return all_gather_records(context, mine, size, 0);
}

// Every process's `bytes` bytes, once all have come (an all-gather on the world, so a barrier too).
std::vector<unsigned char> gather_bytes(const NcclCommunicator& world, int size, const void* mine,
                                        std::size_t bytes) {
  Stream stream(world.device());
  const RankContext context{world.rank(), world.device(), stream.get(), world.get()};
  return all_gather_host_bytes(context, mine, bytes, size, 0);
}

// Slots for start gates: one per rank set a run makes (a sweep makes one per GPU count and
// communicator setting), far more than any run needs.
constexpr std::size_t kGateSlots = 4096;

// The segment: one 8-byte cell per world rank (which processes see one another), then the slots.
std::size_t cells_bytes(int ranks) {
  const std::size_t slot = sizeof(kernels::StartGateWords);
  return (static_cast<std::size_t>(ranks) * sizeof(std::uint64_t) + slot - 1) / slot * slot;
}

std::uint64_t cell_mark(std::uint64_t token, int rank) {
  return token ^ (static_cast<std::uint64_t>(rank) + 1);
}

// Which ranks share a segment, from every rank's view (`sees[r * size + s]`: rank r read rank s's
// mark): the lowest rank of each one's group, or nothing when the views disagree (r sees s but
// not s r), which a gate must not be built on.
std::optional<std::vector<int>> sharing_groups(const std::vector<unsigned char>& sees, int size) {
  std::vector<int> group(size);
  for (int r = 0; r < size; ++r) {
    group[r] = r;
    for (int s = 0; s < size; ++s) {
      if (sees[r * size + s] != sees[s * size + r]) return std::nullopt;
      if (sees[r * size + s]) group[r] = std::min(group[r], s);
    }
  }
  return group;
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
  std::uint64_t* cells = nullptr;
  try {
    gate_memory_ = std::make_shared<HostSharedMemory>(
        fmt::format("/collbench-{:016x}", token),
        cells_bytes(size_) + kGateSlots * sizeof(kernels::StartGateWords));
    cells = static_cast<std::uint64_t*>(gate_memory_->host());
    __atomic_store_n(&cells[rank_], cell_mark(token, rank_), __ATOMIC_RELEASE);
  } catch (const GpuError& error) {
    fmt::print(stderr,
               "collbench: warning: rank {}: no start gate across processes ({}); its timed work "
               "starts as "
               "enqueued\n",
               rank_, error.what());
  }
  // Every process has opened the segment and marked its cell before any looks or removes its name.
  gather_bytes(*world_, size_, &rank_, 1);
  if (gate_memory_) gate_memory_->unlink();
  // Processes share a gate where they see one another's marks: the same /dev/shm, so the same
  // kernel and one steady clock, whatever their host names say.
  std::vector<unsigned char> seen(size_, 0);
  for (int rank = 0; cells && rank < size_; ++rank) {
    seen[rank] = __atomic_load_n(&cells[rank], __ATOMIC_ACQUIRE) == cell_mark(token, rank);
  }
  const std::vector<unsigned char> sees = gather_bytes(*world_, size_, seen.data(), seen.size());
  const std::optional<std::vector<int>> groups = sharing_groups(sees, size_);
  if (!groups) {
    gate_memory_.reset();  // every process sees the same views, so all drop it alike
    if (rank_ == 0) {
      fmt::print(
          stderr,
          "collbench: warning: processes disagree on who shares /dev/shm; timed work starts as "
          "enqueued\n");
    }
    return;
  }
  // The same table on every process: by sharing when any process could map the segment.
  bool any_mapped = false;
  for (int rank = 0; rank < size_; ++rank) any_mapped = any_mapped || sees[rank * size_ + rank];
  if (any_mapped) host_of_rank_ = *groups;
}

kernels::StartGateWords* ProcessGroup::next_gate_slot() {
  const std::size_t slot = next_gate_slot_++;
  if (!gate_memory_ || slot >= kGateSlots) return nullptr;
  auto* slots = reinterpret_cast<kernels::StartGateWords*>(
      static_cast<unsigned char*>(gate_memory_->host()) + cells_bytes(size_));
  return slots + slot;
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
