// The processes of a multi-process run (one GPU each): the world NCCL communicator, made through
// MPI (rank 0's unique id broadcast) or NCCL's own bootstrap (NCCL_COMM_ID), and the
// sub-communicators that GPU-count sweeps use (ncclCommSplit of the world).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "launch/launch_environment.hpp"
#include "runtime/host_shared_memory.hpp"
#include "runtime/nccl_communicator.hpp"
#include "start_gate_wait.hpp"

namespace collbench {

// This host's name, hashed: processes compare it to learn who shares a node.
std::uint64_t this_host_hash();

class ProcessGroup {
 public:
  // Starts MPI when the mode is mpi, picks this process's GPU and creates the world communicator.
  // A world that has not formed within `init_timeout_s` (at least 60 s; a process that never
  // started, or failed before joining) ends this process with a one-line error and status 1
  // instead of waiting forever.
  ProcessGroup(const LaunchEnvironment& environment, double init_timeout_s);
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  int device() const { return device_; }
  int nodes() const { return nodes_; }
  LaunchMode mode() const { return mode_; }
  // The host of world rank `rank`: equal numbers for ranks that share a start gate's memory (one
  // /dev/shm, so one kernel and one steady clock), found by each process marking a cell of the
  // shared segment; by host name when no process could map it.
  int host_of(int rank) const { return host_of_rank_.at(rank); }

  // The next start-gate slot in memory every process of this host shares (runtime/start_gate.hpp),
  // zeroed and used by no one else; null when there is no such memory (then work runs ungated).
  // Collective in order: every process takes a slot for every rank set it makes, so that a slot
  // means the same gate on every process of the host.
  kernels::StartGateWords* next_gate_slot();
  std::shared_ptr<const HostSharedMemory> gate_memory() const { return gate_memory_; }

  // The communicator of world ranks [0, ranks) for this process, or nothing when this process's
  // rank is not among them. Collective: every process must call it with the same `ranks`.
  // `config` (e.g. maxCTAs) applies to the new communicator; null inherits the world's.
  std::optional<NcclCommunicator> split_first(int ranks, ncclConfig_t* config = nullptr);
  // Aborts the world communicator after a failed run (a timeout, an error): a peer may be stuck
  // for good, so nothing collective happens at teardown any more, not even MPI_Finalize.
  void abort() noexcept;

 private:
  // Opens this run's shared segment of start-gate slots on this host (named from `token`).
  void open_gate_memory(std::uint64_t token);

  LaunchMode mode_;
  int rank_ = 0;
  int size_ = 1;
  int device_ = 0;
  int nodes_ = 1;
  bool aborted_ = false;
  std::vector<int> host_of_rank_;
  std::unique_ptr<NcclCommunicator> world_;
  std::shared_ptr<HostSharedMemory> gate_memory_;
  std::size_t next_gate_slot_ = 0;
};

}  // namespace collbench
