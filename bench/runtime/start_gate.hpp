// A start gate: timed work on several GPUs starts together once every rank has enqueued it, as
// nvbench's blocking kernel does, so that neither a host that enqueued late nor the time enqueueing
// took lands inside a timed interval. Each rank's stream first runs a wait for the round's ticket;
// each rank's host arrives once its work is enqueued; the last arrival opens the round for all.
//
// One process driving every rank keeps the gate's words in its own pinned memory. Processes of
// one host share a slot of a shared-memory segment (launch/process_group.hpp), and every process
// taking part counts the rounds alike, so no host needs to open the gate for the others. Ranks on
// other hosts are not held by this host's gate: across hosts, batches start as each host's ranks
// are gated, and hosts meet only in the host all-reduce that ends every batch.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "runtime/host_shared_memory.hpp"
#include "start_gate_wait.hpp"

namespace collbench {

// Stream operations one rank may enqueue behind a closed gate. The launch queue of a stream holds
// about a thousand; a host that blocked on a full queue would never arrive, and every gate of the
// round would wait for it until the deadline. NCCL's work FIFO (1 MiB by default) must also hold
// every collective enqueued before the gate opens.
inline constexpr std::size_t kMaxGatedStreamOperations = 128;
// How long past the host's deadline a held stream gives up on its own (hold's timeout is the
// deadline plus this): the host's deadline comes first and aborts the gate; this only bounds a
// wait whose host died.
inline constexpr double kGateGraceS = 10;

class StartGate {
 public:
  // A gate whose words live in this process's pinned memory.
  StartGate();
  // A gate on `slot`, a zeroed slot of `shared` used by no other gate; it keeps `shared` mapped
  // for as long as it lives.
  StartGate(std::shared_ptr<const HostSharedMemory> shared, kernels::StartGateWords* slot);
  // A gate that holds nothing (shared memory could not be had): work starts as enqueued.
  static StartGate disabled();
  // Releases this process's waits (not the other processes'), so that no stream of it keeps
  // spinning on words that are about to go.
  ~StartGate();
  StartGate(StartGate&&) noexcept;
  StartGate& operator=(StartGate&&) = delete;
  StartGate(const StartGate&) = delete;
  StartGate& operator=(const StartGate&) = delete;

  bool enabled() const { return words_ != nullptr; }
  // The next round, in which `ranks_on_host` ranks of this host take part. Every process taking
  // part in the round calls it, in the same order and with the same count; returns its ticket.
  std::uint64_t next_round(int ranks_on_host);
  // Holds `stream` (of `device`) until the round of `ticket` opens, or `timeout_s` passed.
  void hold(int device, cudaStream_t stream, std::uint64_t ticket, double timeout_s) const;
  // `ranks` ranks of this process have enqueued their work of the current round. A rank arrives
  // for a round only once the previous round it took part in has opened (is_open): the count
  // cannot tell whose arrival it is. Waiting for the round's work to complete ensures that too.
  void arrive(int ranks = 1) const;
  // Whether the round of `ticket` has opened (every rank arrived); always for a disabled or
  // aborted gate.
  bool is_open(std::uint64_t ticket) const;
  // Lets every held stream go, for good, on every process sharing the gate (a failed case: the
  // others fail or time out too).
  void abort() noexcept;
  // Lets this process's held streams go, for good (its teardown).
  void release_here() noexcept;
  // Throws GpuError when a wait gave up before its round opened (call once the round's work is
  // done).
  void check() const;

 private:
  struct Disabled {};
  explicit StartGate(Disabled) {}
  template <typename T>
  struct PinnedFree {
    void operator()(T* words) const;
  };
  // This process's own abort word, read by its waits beside the gate's.
  std::unique_ptr<int, PinnedFree<int>> process_abort_;
  std::unique_ptr<kernels::StartGateWords, PinnedFree<kernels::StartGateWords>> pinned_;
  std::shared_ptr<const HostSharedMemory> shared_;
  kernels::StartGateWords* words_ = nullptr;  // host view: pinned_ or a slot of shared_
  std::uint64_t last_ticket_ = 0;
};

// An exception-safe round on the ranks one thread drives: arrives on destruction, so that a rank
// whose enqueueing failed half way still lets the others' streams go (their work then fails or
// times out on its own, instead of spinning at the gate).
class GateArrival {
 public:
  GateArrival(const StartGate& gate, int ranks = 1) : gate_(gate), ranks_(ranks) {}
  ~GateArrival() { arrive_now(); }
  GateArrival(const GateArrival&) = delete;
  GateArrival& operator=(const GateArrival&) = delete;

  // Arrives now rather than at the end of the scope, once: the round's first operations are
  // enqueued, the rest follow while it runs (a round longer than kMaxGatedStreamOperations).
  void arrive_now() {
    if (arrived_) return;
    arrived_ = true;
    gate_.arrive(ranks_);
  }

 private:
  const StartGate& gate_;
  int ranks_;
  bool arrived_ = false;
};

}  // namespace collbench
