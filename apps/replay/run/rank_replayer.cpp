// One rank's replay: preparing, issuing an iteration, reading its events.
#include "run/rank_replayer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>
#include <utility>

#include "core/data_type.hpp"
#include "core/errors.hpp"
#include "fill_check.hpp"
#include "gpu_delay.hpp"
#include "plan/check_values.hpp"
#include "plan/registry_op.hpp"
#include "plan/traced_op_times.hpp"
#include "runtime/nccl_group.hpp"
#include "runtime/stream_capture.hpp"
#include "telemetry/nvtx.hpp"

namespace collbench::replay {
namespace {

void record(const Event& event, cudaStream_t stream) {
  CB_CUDA_CHECK(cudaEventRecord(event.get(), stream));
}

double elapsed_us(const Event& from, const Event& to) {
  return 1000.0 * elapsed_ms(from, to);
}

std::string nvtx_name(const WorkloadOp& op) {
  const std::string peer = op.peer ? fmt::format(" peer {}", *op.peer) : "";
  return fmt::format("{} comm {} seq {}{}", name_of(op.op), op.comm, op.seq, peer);
}

}  // namespace

std::string describe_iteration(const IterationIssue& issue) {
  switch (issue.kind) {
    case IterationIssue::Kind::warm_up:
      return fmt::format("warm-up iteration {}{}", issue.index, issue.plain ? " (plain)" : "");
    case IterationIssue::Kind::timed:
      return fmt::format("timed iteration {}{}", issue.index, issue.plain ? " (plain)" : "");
    case IterationIssue::Kind::checked:
      break;
  }
  return "the checked iteration";
}

RankReplayer::RankReplayer(const WorkloadOps& workload, const TrafficByInstance& traffic,
                           const RankContext& lead, std::vector<NcclCommunicator> communicators,
                           bool gaps, BufferRegistration registration, const ReplayHooks& hooks,
                           const KernelTrace* trace)
    : workload_(workload),
      traffic_(traffic),
      ops_(workload.by_rank.at(static_cast<std::size_t>(lead.rank))),
      lead_(lead),
      hooks_(hooks),
      trace_(trace),
      plan_(plan_rank_issue(ops_, workload.communicators)),
      gaps_(gaps ? recorded_gaps(ops_, plan_)
                 : std::vector<std::vector<StepDelay>>(plan_.steps.size())),
      registration_(registration),
      communicators_(std::move(communicators)) {
  for (std::size_t s = 0; s < plan_.steps.size(); ++s)
    step_costs_.push_back(plan_.steps[s].stream_operations() + gaps_[s].size());
  bound_.assign(ops_.size(), nullptr);
  if (trace_ && plan_.steps.size() > static_cast<std::size_t>(kMostTracedSteps)) {
    throw UsageError(
        fmt::format("rank {} issues {} steps a window: the kernel trace tags at most {}", rank(),
                    plan_.steps.size(), kMostTracedSteps));
  }
}

RankContext RankReplayer::op_context(std::size_t ordinal) const {
  const WorkloadOp& op = ops_.at(ordinal);
  return {workload_.comm_rank(op), device(), stream_of(op.stream),
          communicators_.at(static_cast<std::size_t>(op.comm)).get()};
}

RankBuffers RankReplayer::op_buffers(std::size_t ordinal) const {
  return {send_of(ordinal), recv_of(ordinal)};
}

void RankReplayer::bind_all_reduce(std::size_t ordinal, const BoundAllReduce* bound) {
  bound_.at(ordinal) = bound;
  // Its launches replace the one NCCL call the plan counted.
  step_costs_.at(plan_.ops[ordinal].step) +=
      static_cast<std::size_t>(std::max(bound->stream_operations(), 1)) - 1;
}

void RankReplayer::prepare() {
  ScopedDevice on(device(), rank());
  // Before any gated iteration or wait on a peer: a kernel's first launch waits for an idle GPU.
  CB_CUDA_CHECK(kernels::preload_gpu_delay());
  CB_CUDA_CHECK(kernels::preload_fill_check());
  prepare_streams_and_events();
  prepare_buffers_and_inputs();
  results_.mismatches.assign(ops_.size(), 0);
}

void RankReplayer::prepare_streams_and_events() {
  for (std::size_t s = 0; s < plan_.streams.size(); ++s) {
    streams_.emplace_back(device());
    joins_.emplace_back(device());
  }
  events_.resize(plan_.steps.size());
  event_of_op_.resize(ops_.size());
  for (std::size_t s = 0; s < plan_.steps.size(); ++s) {
    const IssueStep& step = plan_.steps[s];
    for (int stream : step.streams)
      events_[s].push_back({stream, Event(device()), Event(device())});
    for (std::size_t ordinal : step.ops) {
      const auto found = std::find(step.streams.begin(), step.streams.end(), ops_[ordinal].stream);
      event_of_op_[ordinal] = static_cast<std::size_t>(found - step.streams.begin());
    }
    waited_.emplace_back(step.streams.size(), false);
  }
  for (const IssueStep& step : plan_.steps) {
    for (const StreamWait& wait : step.waits)
      waited_[plan_.ops[wait.op].step][event_of_op_[wait.op]] = true;
  }
  iteration_start_ = Event(device());
  iteration_end_ = Event(device());
  for (const WorkloadOp& op : ops_) {
    op_names_.push_back(nvtx_name(op));
    entries_.push_back(&registry_entry(op.op));
  }
}

// Inputs are filled once here, each op's with its own values (ops sharing a stream's buffer
// overwrite each other's: any such values time alike); --check fills them again, op by op.
void RankReplayer::prepare_buffers_and_inputs() {
  for (const StreamBuffers& bytes : plan_.streams) {
    buffers_.push_back({ReplayBuffer(registration_, device(), bytes.send_bytes),
                        ReplayBuffer(registration_, device(), bytes.recv_bytes)});
  }
  register_buffers();
  mismatch_counters_ =
      DeviceBuffer(device(), std::max<std::size_t>(ops_.size(), 1) * sizeof(unsigned long long));
  CB_CUDA_CHECK(
      cudaMemsetAsync(mismatch_counters_.get(), 0, mismatch_counters_.bytes(), lead_.stream));
  segment_tables_.resize(ops_.size());
  for (std::size_t ordinal = 0; ordinal < ops_.size(); ++ordinal) {
    const WorkloadOp& op = ops_[ordinal];
    if (op.op == ReplayOp::alltoallv) {
      const std::vector<std::uint64_t> table =
          traffic_.at({op.comm, op.seq})->receive_segments(workload_.comm_rank(op));
      segment_tables_[ordinal] = DeviceBuffer(device(), table.size() * sizeof(std::uint64_t));
      // From pageable memory: the call returns once `table` is staged.
      CB_CUDA_CHECK(cudaMemcpyAsync(segment_tables_[ordinal].get(), table.data(),
                                    segment_tables_[ordinal].bytes(), cudaMemcpyHostToDevice,
                                    stream_of(op.stream)));
    }
    fill_and_poison(ordinal);
  }
}

// Each stream's buffers with every communicator whose ops use them, once.
void RankReplayer::register_buffers() {
  std::set<std::pair<int, int>> registered;  // (stream, communicator)
  for (const WorkloadOp& op : ops_) {
    if (!registered.insert({op.stream, op.comm}).second) continue;
    Buffers& buffers = buffers_[static_cast<std::size_t>(op.stream)];
    const ncclComm_t comm = communicators_[static_cast<std::size_t>(op.comm)].get();
    buffers.send.register_with(comm, workload_.comm_rank(op));
    buffers.recv.register_with(comm, workload_.comm_rank(op));
  }
}

void RankReplayer::issue_connection(int comm) {
  auto range = named_range(fmt::format("replay connect comm {}", comm), 0x808080);
  for (const IssueStep& step : plan_.steps) {
    IssueStep on_comm = step;
    on_comm.ops.clear();
    for (std::size_t ordinal : step.ops) {
      if (ops_[ordinal].comm == comm) on_comm.ops.push_back(ordinal);
    }
    if (!on_comm.ops.empty()) launch_step(on_comm, false);
  }
  join_streams();
}

void RankReplayer::issue_iteration(const IterationIssue& issue) {
  auto range = named_range("replay " + describe_iteration(issue), 0x808080, ops_.size());
  const bool checked = issue.kind == IterationIssue::Kind::checked;
  ops_issued_.store(0);
  // However enqueueing ends, the rank arrives: a failure here must not hold the others' streams.
  std::optional<GateArrival> arrival;
  if (issue.gate) {
    arrival.emplace(*issue.gate);
    issue.gate->hold(device(), lead_.stream, issue.ticket, issue.gate_timeout_s);
  }
  if (issue.traced) {
    // The iteration's start on the GPU, as the trace sees it: this empty kernel's end.
    const KernelTrace::TagScope tag(*trace_,
                                    pack_replay_tag({rank(), issue.index, kIterationStartStep}));
    CB_CUDA_CHECK(kernels::launch_gpu_delay(0, lead_.stream));
  }
  record(iteration_start_, lead_.stream);
  // Traced, the ops run as plain: only the tags tell their launches apart.
  const GraphExec& graph = checked                            ? checked_graph_
                           : issue.plain || trace_ != nullptr ? plain_graph_
                                                              : graph_;
  if (graph) {
    std::optional<KernelTrace::TagScope> tag;
    if (issue.traced)
      tag.emplace(*trace_, pack_replay_tag({rank(), issue.index, kGraphLaunchStep}));
    CB_CUDA_CHECK(cudaGraphLaunch(graph.get(), lead_.stream));
    ops_issued_ = ops_.size();
  } else {
    fork_streams(iteration_start_);
    std::size_t enqueued = 2 + streams_.size() + (issue.traced ? 1 : 0);
    for (std::size_t s = 0; s < plan_.steps.size(); ++s) {
      // The gate opens before a rank's queue behind it could fill; the rest follows as it runs.
      const std::size_t cost = step_costs_[s];
      if (arrival && enqueued + cost > kMaxGatedStreamOperations) arrival->arrive_now();
      issue_step(s, checked, issue.plain || issue.traced,
                 issue.traced ? std::optional<int>(issue.index) : std::nullopt);
      enqueued += cost;
    }
    join_streams();
  }
  record(iteration_end_, lead_.stream);
}

void RankReplayer::capture_iteration(bool checked) {
  ScopedDevice on(device(), rank());
  fork_ = Event(device());
  wait_events_.clear();
  for (const std::vector<StepEvents>& step : events_) {
    std::vector<Event> waits;
    for (std::size_t i = 0; i < step.size(); ++i) waits.emplace_back(device());
    wait_events_.push_back(std::move(waits));
  }
  if (!trace_) graph_ = capture(false, false);
  plain_graph_ = capture(false, true);
  if (checked) checked_graph_ = capture(true, false);
}

GraphExec RankReplayer::capture(bool checked, bool plain) {
  auto range = named_range(checked ? "replay capture checked"
                           : plain ? "replay capture plain"
                                   : "replay capture",
                           0x808080, ops_.size());
  StreamCapture capture({lead_});
  capturing_ = true;
  try {
    record(fork_, lead_.stream);
    fork_streams(fork_);
    // The plain graph is the one traced iterations launch: its steps' nodes carry their tags.
    const std::optional<int> tag_iteration =
        trace_ && plain && !checked ? std::optional<int>(kCapturedIteration) : std::nullopt;
    for (std::size_t s = 0; s < plan_.steps.size(); ++s)
      issue_step(s, checked, plain, tag_iteration);
    join_streams();
  } catch (...) {
    capturing_ = false;
    throw;
  }
  capturing_ = false;
  return std::move(instantiate(capture.finish()).front());
}

void RankReplayer::release_graphs() {
  graph_.reset();
  plain_graph_.reset();
  checked_graph_.reset();
}

void RankReplayer::record_timing(const Event& event, cudaStream_t stream) {
  if (!capturing_) return record(event, stream);
  CB_CUDA_CHECK(cudaEventRecordWithFlags(event.get(), stream, cudaEventRecordExternal));
}

void RankReplayer::issue_step(std::size_t s, bool checked, bool plain,
                              std::optional<int> tag_iteration) {
  const IssueStep& step = plan_.steps[s];
  for (const StepDelay& delay : gaps_[s]) {
    const auto delay_ns = static_cast<std::uint64_t>(delay.delay_us * 1000.0);
    CB_CUDA_CHECK(kernels::launch_gpu_delay(delay_ns, stream_of(delay.stream)));
  }
  for (const StreamWait& wait : step.waits) {
    const Event& met = capturing_ ? wait_events_[plan_.ops[wait.op].step][event_of_op_[wait.op]]
                                  : events_of(wait.op).end;
    CB_CUDA_CHECK(cudaStreamWaitEvent(stream_of(wait.stream), met.get(), 0));
  }
  if (checked) {
    for (std::size_t ordinal : step.ops) fill_and_poison(ordinal);
  }
  if (!plain) {
    for (const StepEvents& events : events_[s])
      record_timing(events.start, stream_of(events.stream));
  }
  {
    std::optional<KernelTrace::TagScope> tag;
    if (tag_iteration) {
      tag.emplace(*trace_, pack_replay_tag({rank(), *tag_iteration, static_cast<int>(s)}));
    }
    launch_step(step);
  }
  for (std::size_t i = 0; i < events_[s].size(); ++i) {
    const cudaStream_t stream = stream_of(events_[s][i].stream);
    // Plain and issued directly, only the ends a recorded wait meets.
    if (!plain) {
      record_timing(events_[s][i].end, stream);
    } else if (!capturing_ && waited_[s][i]) {
      record(events_[s][i].end, stream);
    }
    // Captured, the waits meet internal events of their own.
    if (capturing_ && waited_[s][i]) record(wait_events_[s][i], stream);
  }
  if (checked) {
    for (std::size_t ordinal : step.ops) count_mismatches(ordinal);
  }
  ops_issued_ += step.ops.size();
}

// A call NCCL refuses names the op, as a timeout does (a failed group end: its first op).
void RankReplayer::launch_step(const IssueStep& step, bool faults) {
  std::size_t ordinal = step.ops.front();
  bool ending = false;
  try {
    // alltoallv is one send and one recv per peer: a group even when the workload names none.
    std::optional<NcclGroupScope> group;
    if (step.grouped || ops_[ordinal].op == ReplayOp::alltoallv) group.emplace();
    for (std::size_t op : step.ops) launch_op(ordinal = op, faults);
    ending = true;
    if (group) group->end();
  } catch (const GpuError& error) {
    if (ending) ordinal = step.ops.front();
    throw GpuError(fmt::format("{}; issuing {}{} (op {} of rank {})", error.what(),
                               ending && step.grouped ? "the group of " : "",
                               describe_op(workload_, ops_[ordinal]), ordinal, rank()),
                   error.out_of_memory(), error.nccl_status(), error.nccl_message());
  }
}

void RankReplayer::launch_op(std::size_t ordinal, bool faults) {
  const WorkloadOp& op = ops_[ordinal];
  const CollectiveSpec& entry = *entries_[ordinal];
  auto range = named_range(op_names_[ordinal], entry.nvtx_color);
  if (faults && hooks_.skips_op(rank(), ordinal)) return;
  if (bound_[ordinal] != nullptr) {
    bound_[ordinal]->launch();
    return;
  }
  const ncclComm_t comm = communicators_.at(static_cast<std::size_t>(op.comm)).get();
  const cudaStream_t stream = stream_of(op.stream);
  if (op.op == ReplayOp::send) {
    CB_NCCL_CHECK(
        ncclSend(send_of(ordinal), op.count, nccl_type_of(op.dtype), *op.peer, comm, stream));
    return;
  }
  if (op.op == ReplayOp::recv) {
    CB_NCCL_CHECK(
        ncclRecv(recv_of(ordinal), op.count, nccl_type_of(op.dtype), *op.peer, comm, stream));
    return;
  }
  const PeerTraffic* traffic =
      op.op == ReplayOp::alltoallv ? traffic_.at({op.comm, op.seq}).get() : nullptr;
  const LaunchArgs args{send_of(ordinal),
                        recv_of(ordinal),
                        op.count,
                        op.dtype,
                        op.redop.value_or(ReduceOp::sum),
                        op.root.value_or(0),
                        workload_.comm_rank(op),
                        workload_.comm_size(op),
                        comm,
                        stream,
                        traffic};
  entry.launch_nccl(args);
}

// The op's inputs get its values; its output the poison byte, which no correct output holds.
void RankReplayer::fill_and_poison(std::size_t ordinal) {
  const WorkloadOp& op = ops_[ordinal];
  const OpPlacement& place = plan_.ops[ordinal];
  const int comm_rank = workload_.comm_rank(op);
  const kernels::PatternParams pattern = op_pattern(op, comm_rank, workload_.comm_size(op));
  const cudaStream_t stream = stream_of(op.stream);
  if (place.recv_bytes > 0) {
    CB_CUDA_CHECK(cudaMemsetAsync(recv_of(ordinal), kernels::poison_byte(pattern.type),
                                  place.recv_bytes, stream));
  }
  if (place.send_bytes > 0) {
    kernels::launch_fill(send_of(ordinal), place.send_bytes / size_of(op.dtype), pattern, comm_rank,
                         stream);
    CB_CHECK_LAUNCH();
  }
}

void RankReplayer::count_mismatches(std::size_t ordinal) {
  const WorkloadOp& op = ops_[ordinal];
  const int comm_rank = workload_.comm_rank(op);
  const std::uint64_t elements = plan_.ops[ordinal].recv_bytes / size_of(op.dtype);
  if (!op_output_checked(op, comm_rank) || elements == 0) return;
  kernels::PatternParams pattern = op_pattern(op, comm_rank, workload_.comm_size(op));
  pattern.segments =
      segment_tables_[ordinal] ? segment_tables_[ordinal].as<std::uint64_t>() : nullptr;
  const cudaStream_t stream = stream_of(op.stream);
  hooks_.after_checked_op(rank(), ordinal, recv_of(ordinal), elements, pattern, stream);
  kernels::launch_count_mismatches(recv_of(ordinal), elements, pattern, op_output_rule(op),
                                   comm_rank, mismatch_counters_.as<unsigned long long>() + ordinal,
                                   stream);
  CB_CHECK_LAUNCH();
}

void RankReplayer::fork_streams(const Event& from) {
  for (const Stream& stream : streams_)
    CB_CUDA_CHECK(cudaStreamWaitEvent(stream.get(), from.get(), 0));
}

void RankReplayer::join_streams() {
  for (std::size_t s = 0; s < streams_.size(); ++s) {
    record(joins_[s], streams_[s].get());
    CB_CUDA_CHECK(cudaStreamWaitEvent(lead_.stream, joins_[s].get(), 0));
  }
}

void RankReplayer::record_timed_iteration(bool plain) {
  ScopedDevice on(device(), rank());
  if (plain) {
    results_.plain_window_us.push_back(elapsed_us(iteration_start_, iteration_end_));
    return;
  }
  if (trace_) {
    results_.window_us.push_back(elapsed_us(iteration_start_, iteration_end_));
    return;
  }
  std::vector<OpInterval> intervals;
  for (std::size_t ordinal = 0; ordinal < ops_.size(); ++ordinal) {
    const StepEvents& events = events_of(ordinal);
    intervals.push_back(
        {elapsed_us(iteration_start_, events.start), elapsed_us(iteration_start_, events.end)});
  }
  results_.iterations.push_back(std::move(intervals));
  results_.window_us.push_back(elapsed_us(iteration_start_, iteration_end_));
}

void RankReplayer::record_traced_iteration(const std::vector<TracedActivity>& activity, int index) {
  std::vector<std::size_t> step_of_op;
  for (const OpPlacement& place : plan_.ops) step_of_op.push_back(place.step);
  results_.iterations.push_back(
      traced_op_intervals(activity, rank(), index, step_of_op, plan_.steps.size()));
}

void RankReplayer::record_mismatches() {
  ScopedDevice on(device(), rank());
  std::vector<unsigned long long> counts(ops_.size());
  CB_CUDA_CHECK(cudaMemcpy(counts.data(), mismatch_counters_.get(),
                           counts.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  results_.mismatches.assign(counts.begin(), counts.end());
}

std::string RankReplayer::unfinished_op() const {
  ScopedDevice on(device(), rank());
  const std::size_t issued = ops_issued_.load();
  for (std::size_t ordinal = 0; ordinal < issued; ++ordinal) {
    if (cudaEventQuery(events_of(ordinal).end.get()) == cudaErrorNotReady)
      return fmt::format("rank {}: {} (op {} of the rank) had not finished", rank(),
                         describe_op(workload_, ops_[ordinal]), ordinal);
  }
  if (issued < ops_.size())
    return fmt::format("rank {}: {} (op {} of the rank) was not issued yet", rank(),
                       describe_op(workload_, ops_[issued]), issued);
  return "";
}

void RankReplayer::check_async_errors() const {
  for (const NcclCommunicator& communicator : communicators_) communicator.check_async_error();
}

void RankReplayer::abort() noexcept {
  for (NcclCommunicator& communicator : communicators_) communicator.abort();
  for (Buffers& buffers : buffers_) {
    buffers.send.abandon();
    buffers.recv.abandon();
  }
  for (DeviceBuffer& table : segment_tables_) table.abandon();
  mismatch_counters_.abandon();
}

cudaStream_t RankReplayer::stream_of(int recorded_stream) const {
  return streams_[static_cast<std::size_t>(recorded_stream)].get();
}

const RankReplayer::StepEvents& RankReplayer::events_of(std::size_t ordinal) const {
  return events_[plan_.ops[ordinal].step][event_of_op_[ordinal]];
}

void* RankReplayer::send_of(std::size_t ordinal) const {
  const OpPlacement& place = plan_.ops[ordinal];
  return buffers_[static_cast<std::size_t>(place.stream)].send.as<char>() + place.send_offset;
}

void* RankReplayer::recv_of(std::size_t ordinal) const {
  const OpPlacement& place = plan_.ops[ordinal];
  return buffers_[static_cast<std::size_t>(place.stream)].recv.as<char>() + place.recv_offset;
}

}  // namespace collbench::replay
