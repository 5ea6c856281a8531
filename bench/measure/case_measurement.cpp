// Measuring one case, phase by phase (case_measurement.hpp).
#include "measure/case_measurement.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <thread>

#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "core/stop_rule.hpp"
#include "launch/process_group.hpp"
#include "measure/sample_tables.hpp"
#include "reports/report_row.hpp"
#include "runtime/host_collectives.hpp"
#include "runtime/nccl_registration.hpp"
#include "runtime/stream_capture.hpp"
#include "telemetry/nvtx.hpp"

namespace collbench {
namespace {

double steady_now_us() {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void record_event(const Event& event, const RankContext& rank) {
  CB_CUDA_CHECK(cudaEventRecord(event.get(), rank.stream));
}

// Whether NCCL may refuse a case for want of an allowed algorithm/protocol: NCCL_ALGO or NCCL_PROTO
// is set (by the case's settings, which its rank set holds, or by the user).
bool nccl_choice_restricted(const Case& c) {
  return c.algorithm.entry->capabilities.nccl_communicator_variants &&
         (std::getenv("NCCL_ALGO") != nullptr || std::getenv("NCCL_PROTO") != nullptr);
}

}  // namespace

CaseMeasurement::CaseMeasurement(Runner::RankSet& set, const Case& c,
                                 const MeasureSettings& settings, ProcessGroup* group,
                                 std::unique_ptr<MeasurementHooks> hooks)
    : set_(set),
      case_(c),
      settings_(settings),
      group_(group),
      shape_(c.shape()),
      deadline_(WaitDeadline::after(settings.timeout_s)),
      hooks_(std::move(hooks)),
      launched_(set.size()),
      graph_(settings.graph_replays > 0),
      whole_loop_(times_whole_loop(settings)),
      shared_boundaries_(!graph_ && !whole_loop_),
      base_batch_(graph_        ? settings.graph_replays
                  : whole_loop_ ? 1
                                : settings.iters) {}

CaseOutcome CaseMeasurement::run() {
  if (set_.size() == 0) {
    outcome_.participated = false;
    return outcome_;
  }
  if (std::string why = skip_reason(); !why.empty()) {
    outcome_.status = report::kStatusSkipped;
    outcome_.reason = why;
    return outcome_;
  }
  auto case_range = named_range(display_name(case_), case_.spec->nvtx_color, case_.bytes());
  prepare();
  if (!outcome_.reason.empty()) return outcome_;  // registration refused: skipped
  if (std::string refused = nccl_refusal(); !refused.empty()) {
    algorithm_->release();
    outcome_.status = report::kStatusSkipped;
    outcome_.reason = fmt::format("NCCL refuses it{}: {}",
                                  case_.config().empty() ? "" : " with " + case_.config(), refused);
    return outcome_;
  }
  warm_up();
  capture_graphs();
  run_timed_batches();
  gather_rank_tables();
  check_outputs();
  release_and_combine();
  outcome_.status = report::kStatusOk;
  return outcome_;
}

// Decided by the descriptor alone (no algorithm object, peer access or gathers across processes
// for rows that cannot run registered), then by the algorithm made for these ranks.
std::string CaseMeasurement::skip_reason() {
  if (std::string why = registration_skip_reason(
          case_.registration, case_.algo(), case_.algorithm.entry->capabilities.registered_buffers,
          nccl_runtime_version_code());
      !why.empty()) {
    return why;
  }
  algorithm_ = &set_.algorithm(case_.algorithm);
  return algorithm_->unsupported_reason(shape_);
}

// Buffers (every process learns of an allocation failure anywhere before any launches), their
// registration with NCCL (outside any timing), the algorithm's preparation and the inputs.
void CaseMeasurement::prepare() {
  std::string allocation_failure;
  try {
    hooks_->before_allocation();
    set_.buffers_for(case_);
  } catch (const GpuError& error) {
    if (!error.out_of_memory()) throw;
    allocation_failure = error.what();
  }
  if (group_ && !all_processes_agree(allocation_failure.empty()) && allocation_failure.empty()) {
    allocation_failure = "out of memory on another process";
  }
  if (!allocation_failure.empty()) throw GpuError(allocation_failure, true);
  std::string refused;
  try {
    set_.register_buffers();
  } catch (const GpuError& error) {
    refused = error.what();
  }
  // A refusal on any process is the case's skip; every process then releases that mode's
  // buffers, so all start the next case alike.
  if (group_ && !all_processes_agree(refused.empty()) && refused.empty())
    refused = "refused on another process";
  if (!refused.empty()) {
    set_.release_buffers();
    outcome_.status = report::kStatusSkipped;
    outcome_.reason = fmt::format("buffer registration (register={}) failed: {}",
                                  name_of(case_.registration), refused);
    return;
  }
  buffers_ = &set_.buffers_for(case_);
  algorithm_->prepare(set_.contexts(), *buffers_, shape_);
  fill_inputs(pattern(settings_.seed));
}

// Launches the case once on every local rank (as the warm-up would) and returns NCCL's reason when
// it refuses it for want of an allowed algorithm/protocol (ncclInvalidUsage, "no
// algorithm/protocol available"), or empty. NCCL refuses at ncclGroupEnd before it enqueues
// anything, and leaves a blocking communicator usable (src/group.cc: groupCleanup empties the
// planner and marks no error); wait() checks that. Ranks of one communicator choose from the same
// tables, so they refuse together; split groups may differ, so every process learns whether any
// refused and all skip the case alike.
std::string CaseMeasurement::nccl_refusal() {
  if (!nccl_choice_restricted(case_)) return {};
  launched_.expect(1);
  std::vector<std::string> refused(set_.size());
  set_.workers().run([&](int local) {
    try {
      launch_rank(local, settings_.agg_iters);
    } catch (const GpuError& error) {
      if (error.nccl_status() != ncclInvalidUsage) throw;
      refused[local] = error.nccl_message().empty() ? error.what() : error.nccl_message();
    }
  });
  wait();  // what NCCL accepted (whole groups) completes
  std::string reason;
  for (const std::string& why : refused) {
    if (reason.empty()) reason = why;
  }
  if (group_ && !all_processes_agree(reason.empty()) && reason.empty()) {
    reason = "refused on another process (in another --split group)";
  }
  return reason;
}

void CaseMeasurement::warm_up() {
  auto range = fixed_range<nvtx_names::warmup>(case_.spec->nvtx_color, settings_.warmup_iters);
  launched_.expect(settings_.warmup_iters);
  set_.workers().run([&](int local) {
    for (int i = 0; i < settings_.warmup_iters; ++i) launch_rank(local, settings_.agg_iters);
  });
  wait();
}

// Graph mode: the timed iterations become one graph per rank; each replay is timed by events
// around it (event nodes inside the graph would add the very overhead graphs remove). The first
// replay uploads the graphs and is not timed.
void CaseMeasurement::capture_graphs() {
  if (!graph_) return;
  const int iters = settings_.iters;
  graphs_.resize(set_.size());
  {
    auto range = fixed_range<nvtx_names::graph_capture>(case_.spec->nvtx_color, iters);
    set_.workers().run([&](int local) {
      StreamCapture capture(set_.context_of(local));
      for (int i = 0; i < iters; ++i) {
        algorithm_->launch(set_.context_of(local), {(*buffers_)[local]}, shape_,
                           settings_.agg_iters);
      }
      graphs_[local] = std::move(instantiate(capture.finish()).front());
    });
  }
  launched_.expect(iters);
  set_.workers().run([&](int local) {
    CB_CUDA_CHECK(cudaGraphLaunch(graphs_[local].get(), set_.contexts()[local].stream));
    launched_.add(local, iters);
  });
  wait();
}

void CaseMeasurement::run_timed_batches() {
  outcome_.ops_per_sample =
      graph_ || whole_loop_ ? settings_.iters * settings_.agg_iters : settings_.agg_iters;
  launch_us_.assign(set_.size(), {});
  outcome_.rank_start_us.assign(set_.size(), {});
  outcome_.rank_duration_us.assign(set_.size(), {});
  const std::shared_ptr<void> held = hooks_->during_timing(set_.contexts());
  set_.workers().run(
      [&](int local) { record_event(set_.events(local, 1)[0], set_.contexts()[local]); });
  // No gate without a warm-up (a kernel's first launch may load its module, which waits for a
  // device the gate holds) or when one sample alone would fill the launch queue.
  gated_ =
      settings_.warmup_iters > 0 && stream_operations_per_sample() <= kMaxGatedStreamOperations;
  std::size_t asked = std::max(base_batch_, next_step(settings_.stop, {}, outcome_.ops_per_sample,
                                                      settings_.confidence, base_batch_)
                                                .next_samples);
  for (std::size_t round = 0;;) {
    // A batch is what the stop rule asked for, in as many gated rounds as it takes.
    std::vector<double> slowest;
    for (std::size_t left = asked; left > 0; ++round) {
      const std::size_t samples = round_samples(left);
      time_round(round, samples);
      const std::vector<double> more = collect_round(samples);
      slowest.insert(slowest.end(), more.begin(), more.end());
      left -= samples;
    }
    // Every process sees the same samples (the slowest process's), so all stop together.
    if (group_)
      slowest = all_reduce_host_values<double>({set_.agreement_contexts().front()}, {slowest},
                                               ncclMax, [this] { wait(); });
    outcome_.iteration_us.insert(outcome_.iteration_us.end(), slowest.begin(), slowest.end());
    const StopDecision next = next_step(settings_.stop, outcome_.iteration_us,
                                        outcome_.ops_per_sample, settings_.confidence, base_batch_);
    if (next.done) {
      outcome_.stop = next.reason;
      return;
    }
    asked = next.next_samples;
  }
}

std::size_t CaseMeasurement::stream_operations_per_sample() const {
  // Its launches (a loop's iterations; a graph replay is one launch) and an event or two.
  const std::size_t launches = whole_loop_ ? static_cast<std::size_t>(settings_.iters) : 1;
  const std::size_t per_launch =
      graph_ ? 1
             : static_cast<std::size_t>(algorithm_->stream_operations(shape_, settings_.agg_iters));
  return launches * per_launch + (shared_boundaries_ ? 1 : 2);
}

std::size_t CaseMeasurement::round_samples(std::size_t asked) const {
  if (!gated_) return asked;
  return std::max<std::size_t>(
      1, std::min(asked, kMaxGatedStreamOperations / stream_operations_per_sample()));
}

// One round: every rank enqueues its samples behind the gate, which opens once every rank
// of this host has, so the first sample of every rank starts together on the GPUs.
void CaseMeasurement::time_round(std::size_t round, std::size_t samples) {
  auto range =
      fixed_range<nvtx_names::timed>(case_.spec->nvtx_color, samples * outcome_.ops_per_sample);
  launched_.expect(static_cast<std::int64_t>(samples) *
                   (graph_ || whole_loop_ ? settings_.iters : 1));
  const std::uint64_t ticket = gated_ ? set_.gate().next_round(set_.ranks_on_host()) : 0;
  set_.workers().run([&](int local) { time_rank_samples(local, round, samples, ticket); });
  wait();
  set_.gate().check();
}

void CaseMeasurement::time_rank_samples(int local, std::size_t round, std::size_t samples,
                                        std::uint64_t ticket) {
  const RankContext& rank = set_.contexts()[local];
  // Arrives however enqueueing ends: a rank that failed half way must not hold the others' streams.
  GateArrival arrival(set_.gate(), gated_ ? 1 : 0);
  std::vector<Event>& events =
      set_.events(local, shared_boundaries_ ? static_cast<int>(samples) + 2
                                            : 1 + 2 * static_cast<int>(samples));
  const auto start_event = [&](std::size_t s) -> const Event& {
    return events[shared_boundaries_ ? 1 + s : 1 + 2 * s];
  };
  if (gated_) set_.gate().hold(rank.device, rank.stream, ticket, settings_.timeout_s + kGateGraceS);
  const int launches = whole_loop_ ? settings_.iters : 1;
  for (std::size_t s = 0; s < samples; ++s) {
    hooks_->before_sample(local);
    record_event(start_event(s), rank);
    launch_us_[local].push_back(steady_now_us());
    if (graph_) {
      CB_CUDA_CHECK(cudaGraphLaunch(graphs_[local].get(), rank.stream));
      launched_.add(local, settings_.iters);
    } else {
      for (int i = 0; i < launches; ++i) {
        if (!hooks_->skips_launch(local, round, s, samples, i, launches))
          launch_rank(local, settings_.agg_iters);
      }
    }
    if (!shared_boundaries_) record_event(events[2 + 2 * s], rank);
  }
  if (shared_boundaries_) record_event(start_event(samples), rank);
}

// Appends each local rank's samples of the round (start offsets from the case's reference event,
// durations) and returns the batch's samples: per operation, the slowest local rank.
std::vector<double> CaseMeasurement::collect_round(std::size_t samples) {
  std::vector<double> slowest(samples, 0.0);
  for (int local = 0; local < set_.size(); ++local) {
    const std::vector<Event>& events = set_.events(local, 1);
    for (std::size_t s = 0; s < samples; ++s) {
      const std::size_t start = shared_boundaries_ ? 1 + s : 1 + 2 * s;
      const double duration_us = 1000.0 * elapsed_ms(events[start], events[start + 1]);
      outcome_.rank_start_us[local].push_back(1000.0 * elapsed_ms(events[0], events[start]));
      outcome_.rank_duration_us[local].push_back(duration_us);
      slowest[s] = std::max(slowest[s], duration_us / outcome_.ops_per_sample);
    }
  }
  return slowest;
}

// --json and --split need every rank's own samples on every process: per-operation durations,
// and launch times as lateness against the earliest rank of the same host.
void CaseMeasurement::gather_rank_tables() {
  const bool split = case_.communicator.split.has_value();
  if (!settings_.keep_rank_samples && !split) return;
  RankTable per_operation_us = outcome_.rank_duration_us;
  for (std::vector<double>& samples : per_operation_us) {
    for (double& us : samples) us /= outcome_.ops_per_sample;
  }
  std::vector<RankTable> by_rank =
      gather_by_rank(set_, case_.ranks, outcome_.iteration_us.size(),
                     {per_operation_us, launch_us_}, group_ != nullptr, [this] { wait(); });
  if (split) outcome_.group_samples_us = slowest_per_group(by_rank[0], case_.groups());
  if (settings_.keep_rank_samples) {
    outcome_.rank_samples_us = std::move(by_rank[0]);
    outcome_.rank_hosts = set_.host_of_rank();
    outcome_.rank_lateness_us = lateness_within_hosts(by_rank[1], outcome_.rank_hosts);
  }
}

// Checked iterations (-c N): fresh inputs each time (the seed advances), outputs poisoned first,
// mismatches summed over the iterations.
void CaseMeasurement::check_outputs() {
  if (settings_.check_iters <= 0) return;
  auto range = fixed_range<nvtx_names::check>(case_.spec->nvtx_color, case_.bytes());
  for (int local = 0; local < set_.size(); ++local) {
    const RankContext& rank = set_.contexts()[local];
    ScopedDevice on(rank.device, rank.rank);
    CB_CUDA_CHECK(
        cudaMemsetAsync(set_.mismatch_counter(local), 0, sizeof(unsigned long long), rank.stream));
  }
  const std::vector<const std::uint64_t*> segments = set_.upload_receive_segments(case_);
  for (int check = 0; check < settings_.check_iters; ++check)
    launch_checked_iteration(check, segments);
  for (int local = 0; local < set_.size(); ++local) {
    ScopedDevice on(set_.contexts()[local].device, set_.contexts()[local].rank);
    unsigned long long wrong = 0;
    CB_CUDA_CHECK(
        cudaMemcpy(&wrong, set_.mismatch_counter(local), sizeof(wrong), cudaMemcpyDeviceToHost));
    outcome_.wrong_elements += wrong;
  }
}

void CaseMeasurement::launch_checked_iteration(int check,
                                               const std::vector<const std::uint64_t*>& segments) {
  // No rank may refill its inputs while a peer still reads them for the previous check.
  if (check > 0 && group_) all_processes_agree(true);
  const kernels::PatternParams checked =
      pattern(settings_.seed + static_cast<std::uint64_t>(check));
  set_.poison_outputs(case_);
  fill_inputs(checked);
  launched_.expect(1);
  set_.workers().run([&](int local) { launch_rank(local, 1); });
  const kernels::OutputRule& rule = case_.spec->expected;
  std::vector<void*> outputs;
  for (const RankBuffers& buffers : *buffers_) outputs.push_back(buffers.recv);
  hooks_->after_checked_launch(check, set_.contexts(), outputs, case_.counts.recv, checked,
                               rule.root_only, case_.root);
  for (int local = 0; local < set_.size(); ++local) {
    const RankContext& rank = set_.contexts()[local];
    if (rule.root_only && rank.rank != case_.root) continue;
    ScopedDevice on(rank.device, rank.rank);
    kernels::PatternParams on_rank = checked;
    on_rank.segments = segments[local];
    kernels::launch_count_mismatches((*buffers_)[local].recv, case_.counts.recv, on_rank, rule,
                                     rank.rank, set_.mismatch_counter(local), rank.stream);
    CB_CHECK_LAUNCH();
  }
  wait();
}

// Every launch has completed: other processes' memory may be unmapped now, and the combine below
// is the barrier after which every process may free what it exported.
void CaseMeasurement::release_and_combine() {
  for (int local = 0; local < set_.size(); ++local) {
    outcome_.local_ranks.push_back(set_.count_rank(local));
    outcome_.local_devices.push_back(set_.contexts()[local].device);
    const std::vector<double>& durations_us = outcome_.rank_duration_us[local];
    if (durations_us.empty()) continue;
    double total_us = 0;
    for (double us : durations_us) total_us += us;
    outcome_.slowest_rank_mean_us =
        std::max(outcome_.slowest_rank_mean_us,
                 total_us / static_cast<double>(durations_us.size()) / outcome_.ops_per_sample);
  }
  algorithm_->release();
  if (group_) {
    std::vector<std::uint64_t> wrong = {outcome_.wrong_elements};
    wrong = all_reduce_host_values<std::uint64_t>({set_.agreement_contexts().front()}, {wrong},
                                                  ncclSum, [this] { wait(); });
    outcome_.wrong_elements = wrong.front();
    const std::vector<double> slowest_mean = {outcome_.slowest_rank_mean_us};
    outcome_.slowest_rank_mean_us =
        all_reduce_host_values<double>({set_.agreement_contexts().front()}, {slowest_mean}, ncclMax,
                                       [this] { wait(); })
            .front();
  }
}

void CaseMeasurement::launch_rank(int local, int aggregate) {
  algorithm_->launch(set_.context_of(local), {(*buffers_)[local]}, shape_, aggregate);
  launched_.add(local);
}

void CaseMeasurement::wait() {
  try {
    set_.wait_idle(deadline_,
                   [this](const std::vector<bool>& idle) { return timeout_reason(idle); });
  } catch (const CaseTimeout&) {
    // At once: a host all-reduce frees its buffers on the way out, and freeing waits for the hung
    // kernels (host_collectives.hpp).
    set_.abort_all();
    throw;
  }
  // A hand-built kernel that gave up waiting on a peer has finished; it must not pass as ok.
  if (algorithm_) algorithm_->check_health();
}

// At a timeout: which ranks had not started what the others were waiting in.
std::string CaseMeasurement::timeout_reason(const std::vector<bool>& idle) const {
  std::vector<RankProgress> local;
  for (int l = 0; l < set_.size(); ++l) {
    local.push_back(local_rank_progress(set_.count_rank(l), set_.contexts()[l].device,
                                        launched_.launched(l), launched_.expected(), idle[l]));
  }
  const bool ask_over_mpi = group_ && group_->mode() == LaunchMode::mpi;
  return describe_timeout(display_name(case_), settings_.timeout_s, case_.ranks, local,
                          ask_over_mpi);
}

bool CaseMeasurement::all_processes_agree(bool ok) {
  if (!group_) return ok;
  return all_ranks_agree({set_.agreement_contexts().front()}, ok, [this] { wait(); });
}

// Inputs and expected outputs are those of one communicator: under --split, of each group alone
// (group ranks, group size), as nccl-tests checks each split communicator.
kernels::PatternParams CaseMeasurement::pattern(std::uint64_t seed) const {
  return {seed,
          case_.group_ranks(),
          std::max(case_.root, 0),
          case_.counts.param,
          static_cast<kernels::ElementType>(case_.type),
          static_cast<kernels::Reduction>(case_.op)};
}

void CaseMeasurement::fill_inputs(const kernels::PatternParams& params) {
  for (int local = 0; local < set_.size(); ++local) {
    const RankContext& rank = set_.contexts()[local];
    ScopedDevice on(rank.device, rank.rank);
    // The rank set allocated these buffers; `send` is const only towards the algorithms.
    kernels::launch_fill(const_cast<void*>((*buffers_)[local].send), case_.counts.send, params,
                         rank.rank, rank.stream);
    CB_CHECK_LAUNCH();
  }
}

}  // namespace collbench
