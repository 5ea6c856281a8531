// One rank's replay on its GPU: a stream per recorded stream, forked from the rank's lead stream
// and joined back to it each iteration; buffers per stream sized by the issue plan; per step a
// start and an end event on each of its streams, which meet the recorded waits and time its ops
// where no kernel trace does (with one, each step's launches are tagged instead);
// the rank's communicators (split from the world), with which the buffers are registered as the
// combination says. Its own host thread issues each iteration, op
// by op in issue order, a group's ops between ncclGroupStart/ncclGroupEnd; a checked iteration
// fills every op's inputs with the test values and counts mismatches in its outputs.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "plan/alltoallv_traffic.hpp"
#include "plan/issue_plan.hpp"
#include "plan/rank_results.hpp"
#include "plan/recorded_times.hpp"
#include "plan/workload_ops.hpp"
#include "run/replay_all_reduces.hpp"
#include "run/replay_buffer.hpp"
#include "run/replay_hooks.hpp"
#include "runtime/cuda_resources.hpp"
#include "runtime/nccl_communicator.hpp"
#include "runtime/start_gate.hpp"
#include "telemetry/kernel_trace.hpp"

namespace collbench::replay {

// How one iteration is issued.
struct IterationIssue {
  enum class Kind { warm_up, timed, checked } kind = Kind::timed;
  int index = 0;  // among the iterations of its kind
  // Without the per-step events that time the ops (only those a recorded wait meets): the window
  // as the workload's own issue would take it; each timed iteration is issued both ways. A timed
  // iteration that is not plain is traced where the session has a kernel trace: issued as a plain
  // one, its launches tagged (plan/traced_op_times.hpp), no per-step event recorded.
  bool plain = false;
  bool traced = false;
  const StartGate* gate = nullptr;  // gated: the gate holds the lead stream until `ticket` opens
  std::uint64_t ticket = 0;
  double gate_timeout_s = 0;
};

// "timed iteration 3", "warm-up iteration 0", "the checked iteration": in messages and NVTX.
std::string describe_iteration(const IterationIssue& issue);

class RankReplayer {
 public:
  // `lead`: the rank's context in the world (its global rank, GPU, lead stream); `communicators`:
  // its split of each workload communicator, by id. `workload`, `traffic` and `hooks` outlive it.
  // `registration`: how its stream buffers are registered with NCCL (run/replay_buffer.hpp).
  // `trace`: where the ops' kernels are traced (their times), or null (events time them).
  RankReplayer(const WorkloadOps& workload, const TrafficByInstance& traffic,
               const RankContext& lead, std::vector<NcclCommunicator> communicators, bool gaps,
               BufferRegistration registration, const ReplayHooks& hooks, const KernelTrace* trace);
  RankReplayer(const RankReplayer&) = delete;
  RankReplayer& operator=(const RankReplayer&) = delete;

  int rank() const { return lead_.rank; }
  int device() const { return lead_.device; }
  cudaStream_t lead_stream() const { return lead_.stream; }
  std::size_t op_count() const { return ops_.size(); }
  const std::vector<WorkloadOp>& ops() const { return ops_; }
  // Where op `ordinal` runs (its communicator rank and handle, GPU and stream) and its buffers;
  // after prepare().
  RankContext op_context(std::size_t ordinal) const;
  RankBuffers op_buffers(std::size_t ordinal) const;
  // Op `ordinal` (an all_reduce) runs as `bound` from now on instead of ncclAllReduce; `bound`
  // outlives the replayer's iterations.
  void bind_all_reduce(std::size_t ordinal, const BoundAllReduce* bound);

  // Streams, buffers, events, alltoallv's segment tables and the inputs, on this rank's thread.
  void prepare();
  // Enqueues this rank's ops on communicator `comm` alone, in issue order (a group's ops on it
  // grouped), its streams joined to the lead stream; no events, waits or faults. NCCL connects a
  // communicator's peers at its first ops and blocks the host until they connect too: ranks that
  // reach their communicators in different orders (on different streams, as a checked workload
  // may) would wait on each other's threads, outside any deadline. One communicator at a time on
  // every rank, before any iteration, connects them all in one order.
  void issue_connection(int comm);
  // Enqueues one iteration from this rank's thread: its ops, or once capture_iteration() has run,
  // the captured graph of its kind (the checked one when captured, else op by op).
  void issue_iteration(const IterationIssue& issue);
  // Captures one iteration (every step, its events, waits and gaps) into a CUDA graph, from this
  // rank's thread; launched by every later warm-up and timed iteration. Its events are recorded
  // as external nodes, so they time the ops as in a direct iteration; the recorded waits meet
  // internal events of their own. With a kernel trace only the plain iteration is captured (its
  // steps' nodes tagged), which the traced iterations launch too. With `checked`, the checked
  // iteration too (each op's inputs filled and its output counted, in the graph), so that --check
  // checks what the graph runs.
  void capture_iteration(bool checked);
  // The graphs go before what they launch (the hand-built instances) at the session's end.
  void release_graphs();
  // Once a timed iteration is done: its ops' intervals (timed by events) and the window, kept; of
  // a traced or plain one, the window alone.
  void record_timed_iteration(bool plain);
  // Once traced iteration `index` is done and the trace taken (`activity`): its op intervals.
  void record_traced_iteration(const std::vector<TracedActivity>& activity, int index);
  // Once the checked iteration is done: each op's mismatches, kept.
  void record_mismatches();
  const RankResults& results() const { return results_; }

  // At a timeout: the first op of this rank that had not finished, or "" when every op had.
  std::string unfinished_op() const;
  void check_async_errors() const;
  // Aborts its communicators; its memory is left to the process's end (a hung kernel may use it).
  void abort() noexcept;

 private:
  struct StepEvents {
    int stream;
    Event start;
    Event end;
  };
  struct Buffers {
    ReplayBuffer send;
    ReplayBuffer recv;
  };

  GraphExec capture(bool checked, bool plain);
  void prepare_streams_and_events();
  void prepare_buffers_and_inputs();
  void register_buffers();
  // `tag_iteration`: under a kernel trace, the iteration its launches are tagged with.
  void issue_step(std::size_t step, bool checked, bool plain, std::optional<int> tag_iteration);
  void record_timing(const Event& event, cudaStream_t stream);
  void launch_step(const IssueStep& step, bool faults = true);
  void launch_op(std::size_t ordinal, bool faults);
  void fill_and_poison(std::size_t ordinal);
  void count_mismatches(std::size_t ordinal);
  void fork_streams(const Event& from);
  void join_streams();
  cudaStream_t stream_of(int recorded_stream) const;
  const StepEvents& events_of(std::size_t ordinal) const;
  void* send_of(std::size_t ordinal) const;
  void* recv_of(std::size_t ordinal) const;

  const WorkloadOps& workload_;
  const TrafficByInstance& traffic_;
  const std::vector<WorkloadOp>& ops_;
  const RankContext lead_;
  const ReplayHooks& hooks_;
  const KernelTrace* const trace_;
  const RankIssuePlan plan_;
  const std::vector<std::vector<StepDelay>> gaps_;  // empty per step without --gaps
  // What each step enqueues on the rank's streams (the start gate's budget): its events, waits,
  // delays and launches, a hand-built all_reduce's as many as it says.
  std::vector<std::size_t> step_costs_;
  std::vector<const BoundAllReduce*> bound_;  // by ordinal: null for NCCL's own call
  const BufferRegistration registration_;
  std::vector<NcclCommunicator> communicators_;  // before the buffers: outlive their registrations
  std::vector<Stream> streams_;                  // by recorded stream
  std::vector<Buffers> buffers_;                 // by recorded stream
  std::vector<std::vector<StepEvents>> events_;  // [step][stream of the step]
  std::vector<std::size_t> event_of_op_;         // index into events_[step] of each op's stream
  std::vector<std::vector<bool>> waited_;        // [step][stream of the step]: a wait meets its end
  std::vector<Event> joins_;                     // by recorded stream
  Event iteration_start_, iteration_end_;
  // --issue graph: the captured iterations (timed, plain, checked), the captures' fork event
  // and, per step and stream, the event the recorded waits meet during capture (an external
  // event node orders nothing).
  bool capturing_ = false;
  GraphExec graph_, plain_graph_, checked_graph_;
  Event fork_;
  std::vector<std::vector<Event>> wait_events_;
  std::vector<std::string> op_names_;           // NVTX: "all_reduce comm 1 seq 12"
  std::vector<const CollectiveSpec*> entries_;  // each op's registry entry, looked up once
  std::vector<DeviceBuffer> segment_tables_;    // alltoallv: by ordinal, else empty
  DeviceBuffer mismatch_counters_;              // one per op
  std::atomic<std::size_t> ops_issued_{0};      // of the current iteration, whole steps
  RankResults results_;
};

}  // namespace collbench::replay
