// The ranks of one GPU count driven by this process, for one combination of communicator
// settings: devices, streams, NCCL communicators (and, under --split, each rank's group's), the
// NCCL environment they were made with, per-rank case buffers and timing events, and the
// algorithm objects made for them.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/algorithm.hpp"
#include "core/communicator_settings.hpp"
#include "launch/process_group.hpp"
#include "launch/rank_workers.hpp"
#include "measure/runner.hpp"
#include "runtime/completion_wait.hpp"
#include "runtime/cuda_resources.hpp"
#include "runtime/nccl_communicator.hpp"
#include "runtime/registered_buffer.hpp"
#include "runtime/scoped_environment.hpp"
#include "runtime/start_gate.hpp"

namespace collbench {

class Runner::RankSet {
 public:
  // Creates streams and communicators for GPUs 0..ranks-1 (one process drives them all).
  explicit RankSet(int ranks, const CommunicatorSettings& settings = {});
  // This process's rank among world ranks [0, ranks) (one GPU per process), or no local rank at
  // all when the process is not among them. Collective over every process of `group`.
  RankSet(ProcessGroup& group, int ranks, const CommunicatorSettings& settings = {});

  ~RankSet();
  RankSet(const RankSet&) = delete;
  RankSet& operator=(const RankSet&) = delete;

  int size() const { return static_cast<int>(contexts_.size()); }
  // This process's ranks as the case's collectives see them: under --split each rank's number
  // and communicator are its group's.
  const std::vector<RankContext>& contexts() const { return contexts_; }
  // Rank `local` alone, for work its own thread enqueues.
  const std::vector<RankContext>& context_of(int local) const { return single_contexts_[local]; }
  // Rank `local`'s number among the GPU count's ranks (the same as in contexts() without
  // --split): what tables by rank, faults and timeout messages name.
  int count_rank(int local) const { return count_ranks_[local]; }
  // This process's ranks on the communicator of the whole GPU count: values every process must
  // agree on go over it (a split group reaches only its own members).
  const std::vector<RankContext>& agreement_contexts() const { return agreement_contexts_; }
  // One host thread per rank (see rank_workers.hpp).
  RankWorkers& workers() { return *workers_; }
  // Holds every rank's timed work of a round until all ranks of this host have enqueued theirs.
  StartGate& gate() { return gate_; }
  // The ranks of the GPU count that run on this host (all of them in one process).
  int ranks_on_host() const { return ranks_on_host_; }
  // Per rank of the GPU count, its host (equal numbers: one host, one clock).
  const std::vector<int>& host_of_rank() const { return host_of_rank_; }
  // Throws GpuError when NCCL reports an asynchronous error on any of the communicators.
  void check_async_errors() const;
  // Waits until every local rank's stream is idle, watching for NCCL asynchronous errors, signals
  // and `deadline` (runtime/completion_wait.hpp). Polling (rather than blocking) is what lets a
  // hang be abandoned: at the deadline it throws CaseTimeout with `timeout_reason(idle)`,
  // idle[local] telling which local ranks' streams had finished.
  void wait_idle(const WaitDeadline& deadline,
                 const std::function<std::string(const std::vector<bool>& idle)>& timeout_reason);

  // The implementation `choice` makes for these ranks (one per name and settings), made on first
  // use.
  CollectiveAlgorithm& algorithm(const AlgorithmChoice& choice);

  // Sizes (grow-only) each rank's buffers for `c`, in its registration mode (buffers of another
  // mode are released first), with traffic its check's segment table too, and returns the
  // send/recv pointers; throws GpuError with out_of_memory() when the GPU cannot hold them.
  // Registers nothing: see register_buffers().
  const std::vector<RankBuffers>& buffers_for(const Case& c);
  // Registers with NCCL every buffer that buffers_for() made or grew (symmetric windows: all local
  // ranks in one NCCL group, collective over the communicator, so every process calls it for the
  // same cases). Registrations stay while their buffers do. Throws GpuError when NCCL refuses.
  void register_buffers();
  // Overwrites every rank's output region for `c` with the poison byte (see test_values.cuh).
  void poison_outputs(const Case& c);
  // For a case with traffic (alltoallv), after buffers_for(c): enqueues the copy of each rank's
  // receive segment table (test_values.cuh, PatternParams::segments) to its GPU and returns the
  // device pointers, one per local rank; null pointers for other cases.
  std::vector<const std::uint64_t*> upload_receive_segments(const Case& c);
  void release_buffers();

  // Timing events: `count` per rank, created on demand.
  std::vector<Event>& events(int local_rank, int count);
  // One device counter per rank for the check's mismatch count.
  unsigned long long* mismatch_counter(int local_rank);

  void abort_all() noexcept;

 private:
  // Streams, contexts, per-rank buffers and workers for `devices` once communicators exist.
  void adopt(const std::vector<int>& devices, const std::vector<int>& rank_numbers);
  // The case's communicators, split from communicators_ under `settings` (environment and
  // config): by the rule's color of each rank under --split, else all in one group.
  void split_for_case(const CommunicatorSettings& settings);

  // First: NCCL reads NCCL_ALGO/NCCL_PROTO when a communicator is made and again when it launches
  // (its refusal's result and message), so they stay set until every communicator is gone.
  std::optional<ScopedEnvironment> nccl_environment_;
  // Freed last (a queued wait may still read its words), released first (~RankSet): freeing the
  // buffers waits for every kernel, a held stream's too.
  StartGate gate_;
  std::vector<int> host_of_rank_;
  int ranks_on_host_ = 0;
  std::vector<RankContext> contexts_;
  std::vector<std::vector<RankContext>> single_contexts_;
  std::vector<int> count_ranks_;
  std::vector<RankContext> agreement_contexts_;
  std::vector<Stream> streams_;
  std::vector<NcclCommunicator> communicators_;  // of the GPU count
  // The case's, when split from communicators_ (--split; and every setting under a launcher).
  std::vector<NcclCommunicator> group_communicators_;
  // After the communicators: destroyed first, so that they deregister while their communicator
  // (the case's, contexts_) still lives.
  std::vector<RegisteredBuffer> primary_;    // recv buffer, or the one in-place buffer
  std::vector<RegisteredBuffer> secondary_;  // send buffer when out of place
  BufferRegistration buffer_mode_ = BufferRegistration::none;  // of primary_ and secondary_
  std::string buffer_user_;  // "broadcast/nccl": the operation and implementation they served
  std::vector<RankBuffers> buffers_;
  std::vector<std::vector<Event>> events_;
  std::vector<DeviceBuffer> counters_;
  std::vector<DeviceBuffer> segment_tables_;  // upload_receive_segments, grow-only
  std::map<std::string, std::unique_ptr<CollectiveAlgorithm>>
      algorithms_;                        // by AlgorithmChoice::key
  std::unique_ptr<RankWorkers> workers_;  // last: its threads stop before anything they use goes
};

}  // namespace collbench
