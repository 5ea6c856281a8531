// Measuring one case: buffers, warm-up, timed iterations (eager or CUDA graph), checked run.
#include "sweep/runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "core/errors.hpp"
#include "core/stop_rule.hpp"
#include "fill_check.hpp"
#include "launch/interrupt.hpp"
#include "launch/process_group.hpp"
#include "report_row.hpp"
#include "runtime/host_collectives.hpp"
#include "runtime/nccl_registration.hpp"
#include "runtime/sm_hog.hpp"
#include "runtime/stream_capture.hpp"
#include "sweep/case_progress.hpp"
#include "sweep/fault_injection.hpp"
#include "sweep/rank_set.hpp"
#include "telemetry/nvtx.hpp"

namespace collbench {
namespace {

using Clock = std::chrono::steady_clock;
// Per local rank (or per rank of the case), one value per sample.
using RankTable = std::vector<std::vector<double>>;

// Waits until every rank's stream is idle, watching for NCCL asynchronous errors, signals and
// the case's deadline. Polling (rather than blocking) is what lets a hang be abandoned; at the
// deadline, `timeout_reason` gets which local ranks' streams were idle and names the missing.
template <typename Reason>
void wait_for_ranks(Runner::RankSet& set, Clock::time_point deadline, Reason&& timeout_reason) {
  std::vector<bool> idle(set.size());
  for (int polls = 0;; ++polls) {
    for (int local = 0; local < set.size(); ++local) {
      const RankContext& rank = set.contexts()[local];
      const cudaError_t status = cudaStreamQuery(rank.stream);
      idle[local] = status == cudaSuccess;
      if (status != cudaSuccess && status != cudaErrorNotReady) {
        ScopedDevice on(rank.device, rank.rank);
        throw_cuda_error(status, "cudaStreamQuery (work of the case)", __FILE__, __LINE__);
      }
    }
    if (std::all_of(idle.begin(), idle.end(), [](bool i) { return i; })) return;
    throw_if_interrupted();
    set.check_async_errors();
    if (Clock::now() > deadline) throw CaseTimeout(timeout_reason(idle));
    // Spin briefly (small cases finish in microseconds), then back off to spare the CPU.
    if (polls < 2000) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  }
}

// Inputs and expected outputs are those of one communicator: under --split, of each group alone
// (group ranks, group size), as nccl-tests checks each split communicator.
kernels::PatternParams pattern_for(const Case& c, std::uint64_t seed) {
  return {seed,
          c.group_ranks(),
          std::max(c.root, 0),
          c.counts.param,
          static_cast<kernels::ElementType>(c.type),
          static_cast<kernels::Reduction>(c.op)};
}

void fill_inputs(Runner::RankSet& set, const std::vector<RankBuffers>& buffers, const Case& c,
                 const kernels::PatternParams& params) {
  for (int local = 0; local < set.size(); ++local) {
    const RankContext& rank = set.contexts()[local];
    ScopedDevice on(rank.device, rank.rank);
    // The runner allocated these buffers; `send` is const only towards the algorithms.
    kernels::launch_fill(const_cast<void*>(buffers[local].send), c.counts.send, params, rank.rank, rank.stream);
    CB_CHECK_LAUNCH();
  }
}

// Changes element 0 of the first rank whose output is checked (fault injection).
void corrupt_first_output(Runner::RankSet& set, const std::vector<RankBuffers>& buffers, const Case& c,
                          const kernels::PatternParams& params) {
  if (c.counts.recv == 0) return;
  for (int local = 0; local < set.size(); ++local) {
    const RankContext& rank = set.contexts()[local];
    if (c.spec->expected.root_only && rank.rank != c.root) continue;
    ScopedDevice on(rank.device, rank.rank);
    kernels::launch_corrupt_element(buffers[local].recv, 0, params, rank.stream);
    CB_CHECK_LAUNCH();
    return;
  }
}

void record_event(const Event& event, const RankContext& rank) {
  CB_CUDA_CHECK(cudaEventRecord(event.get(), rank.stream));
}

// All-reduces `values` (length and order identical on every process) over the GPU count's
// communicator with `op`, on the one local rank's stream.
template <typename Value, typename Wait>
void all_reduce_host_values(Runner::RankSet& set, std::vector<Value>& values, ncclRedOp_t op, Wait&& wait) {
  values = all_reduce_host_values<Value>({set.agreement_contexts().front()}, {values}, op, wait);
}

// True when `ok` holds on every process of the case.
template <typename Wait>
bool all_processes_agree(Runner::RankSet& set, bool ok, Wait&& wait) {
  std::vector<std::int32_t> flag = {ok ? 1 : 0};
  all_reduce_host_values(set, flag, ncclMin, wait);
  return flag.front() == 1;
}

// Registers the case's new buffers with NCCL, before warm-up and graph capture, so registration
// stays out of the timing. A refusal on any process (each learns of it) is the case's skip
// reason; every process then releases that mode's buffers, so all start the next case alike.
template <typename Wait>
std::string register_case_buffers(Runner::RankSet& set, const Case& c, bool multi_process,
                                  Wait&& wait) {
  std::string failure;
  try {
    set.register_buffers();
  } catch (const GpuError& error) {
    failure = error.what();
  }
  if (multi_process && !all_processes_agree(set, failure.empty(), wait) && failure.empty()) {
    failure = "refused on another process";
  }
  if (failure.empty()) return {};
  set.release_buffers();
  return fmt::format("buffer registration (register={}) failed: {}", name_of(c.registration),
                     failure);
}

// How a rank's events frame its samples: the case's reference event is events[0]; iterations
// launched normally share their boundaries (sample s from events[1 + s] to events[2 + s]), loops
// and graph replays have their own pair (events[1 + 2s], events[2 + 2s]).
struct SampleEvents {
  bool shared_boundaries;
  int count_for(std::size_t samples) const {
    return static_cast<int>(shared_boundaries ? samples + 2 : 1 + 2 * samples);
  }
  std::size_t start(std::size_t s) const { return shared_boundaries ? 1 + s : 1 + 2 * s; }
  std::size_t end(std::size_t s) const { return start(s) + 1; }
};

// Appends each local rank's `count` samples (start offsets from the reference, durations) and
// returns the batch's samples: per operation, the slowest local rank.
std::vector<double> collect_batch(Runner::RankSet& set, const SampleEvents& layout, std::size_t count,
                                  int ops_per_sample, CaseOutcome& outcome) {
  std::vector<double> slowest(count, 0.0);
  for (int local = 0; local < set.size(); ++local) {
    const std::vector<Event>& events = set.events(local, layout.count_for(count));
    for (std::size_t s = 0; s < count; ++s) {
      const double duration_us = 1000.0 * elapsed_ms(events[layout.start(s)], events[layout.end(s)]);
      outcome.rank_start_us[local].push_back(1000.0 * elapsed_ms(events[0], events[layout.start(s)]));
      outcome.rank_duration_us[local].push_back(duration_us);
      slowest[s] = std::max(slowest[s], duration_us / ops_per_sample);
    }
  }
  return slowest;
}

// Tables of values per local rank and sample, indexed by rank number on every process (summed
// across processes, each contributing the ranks it holds), all in one all-reduce.
template <typename Wait>
std::vector<RankTable> gather_by_rank(Runner::RankSet& set, const Case& c, std::size_t samples,
                                      const std::vector<RankTable>& local_tables,
                                      bool multi_process, Wait&& wait) {
  const std::size_t table_size = static_cast<std::size_t>(c.ranks) * samples;
  std::vector<double> flat(local_tables.size() * table_size, 0.0);
  for (std::size_t table = 0; table < local_tables.size(); ++table) {
    for (int local = 0; local < set.size(); ++local) {
      const std::size_t rank = static_cast<std::size_t>(set.count_rank(local));
      const std::vector<double>& values = local_tables[table][local];
      std::copy(values.begin(), values.begin() + samples,
                flat.begin() + table * table_size + rank * samples);
    }
  }
  if (multi_process) all_reduce_host_values(set, flat, ncclSum, wait);
  std::vector<RankTable> by_rank(local_tables.size(), RankTable(c.ranks));
  for (std::size_t table = 0; table < local_tables.size(); ++table) {
    for (int rank = 0; rank < c.ranks; ++rank) {
      const auto first = flat.begin() + table * table_size + rank * samples;
      by_rank[table][rank].assign(first, first + samples);
    }
  }
  return by_rank;
}

// Each rank's launch time of every sample minus the earliest rank's launch of that sample.
RankTable lateness_of(const RankTable& launch_us) {
  RankTable lateness = launch_us;
  for (std::size_t s = 0; !launch_us.empty() && s < launch_us.front().size(); ++s) {
    double earliest = launch_us.front()[s];
    for (const std::vector<double>& rank : launch_us) earliest = std::min(earliest, rank[s]);
    for (std::vector<double>& rank : lateness) rank[s] -= earliest;
  }
  return lateness;
}

// Per group of `groups`, each sample's slowest rank of the group (`by_rank`: per rank, per sample).
RankTable slowest_per_group(const RankTable& by_rank, const std::vector<std::vector<int>>& groups) {
  RankTable slowest;
  for (const std::vector<int>& group : groups) {
    std::vector<double> times(by_rank.empty() ? 0 : by_rank.front().size(), 0.0);
    for (int rank : group) {
      for (std::size_t s = 0; s < times.size(); ++s)
        times[s] = std::max(times[s], by_rank[rank][s]);
    }
    slowest.push_back(std::move(times));
  }
  return slowest;
}

// Whether NCCL may refuse a case for want of an allowed algorithm/protocol: NCCL_ALGO or NCCL_PROTO
// is set (by the case's settings, which its rank set holds, or by the user).
bool nccl_choice_restricted(const Case& c) {
  return c.algorithm.entry->capabilities.nccl_communicator_variants &&
         (std::getenv("NCCL_ALGO") != nullptr || std::getenv("NCCL_PROTO") != nullptr);
}

// Launches the case once on every local rank (as the warm-up would) and returns NCCL's reason when
// it refuses it for want of an allowed algorithm/protocol (ncclInvalidUsage, "no
// algorithm/protocol available"), or empty. NCCL refuses at ncclGroupEnd before it enqueues
// anything, and leaves a blocking communicator usable (src/group.cc: groupCleanup empties the
// planner and marks no error); wait() checks that. Ranks of one communicator choose from the same
// tables, so they refuse together; split groups may differ, so every process learns whether any
// refused and all skip the case alike.
template <typename Launch, typename Wait>
std::string nccl_refusal(Runner::RankSet& set, Launch&& launch_rank, int aggregate,
                         bool multi_process, Wait&& wait) {
  std::vector<std::string> refused(set.size());
  set.workers().run([&](int local) {
    try {
      launch_rank(local, aggregate);
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
  if (multi_process && !all_processes_agree(set, reason.empty(), wait) && reason.empty()) {
    reason = "refused on another process (in another --split group)";
  }
  return reason;
}

// Holds the SMs that slow_rank asks for on each local rank's GPU for as long as it lives.
std::vector<std::unique_ptr<SmHog>> hold_sms(const std::vector<RankContext>& ranks,
                                             const std::vector<RankFault>& faults) {
  std::vector<std::unique_ptr<SmHog>> hogs;
  for (std::size_t local = 0; local < ranks.size(); ++local) {
    if (faults[local].sm_share > 0)
      hogs.push_back(std::make_unique<SmHog>(ranks[local].device, faults[local].sm_share));
  }
  return hogs;
}

}  // namespace

Runner::Runner(const RunSettings& settings, ProcessGroup* group) : settings_(settings), group_(group) {}

Runner::~Runner() {
  if (stopped()) abort_all();
}

void Runner::abort_all() noexcept {
  for (auto& [ranks, set] : sets_) set->abort_all();
}

Runner::RankSet& Runner::rank_set(const Case& c) {
  std::pair<int, std::string> key{c.ranks, communicator_config(c.communicator, c.ranks)};
  auto found = sets_.find(key);
  if (found != sets_.end()) return *found->second;
  // The sweep is grouped by GPU count and communicator settings: free the previous set's buffers
  // and communicators (and restore its NCCL environment) first.
  sets_.clear();
  auto set = group_ ? std::make_unique<RankSet>(*group_, c.ranks, c.communicator)
                    : std::make_unique<RankSet>(c.ranks, c.communicator);
  return *sets_.emplace(std::move(key), std::move(set)).first->second;
}

CaseOutcome Runner::run(const Case& c) {
  CaseOutcome outcome;
  if (!c.skip_reason.empty()) {
    outcome.status = report::kStatusSkipped;
    outcome.reason = c.skip_reason;
    return outcome;
  }
  try {
    return measure(rank_set(c), c);
  } catch (const GpuError& error) {
    if (error.out_of_memory()) {
      for (auto& [key, set] : sets_) set->release_buffers();
      outcome.status = report::kStatusOom;
      outcome.reason = error.what();
      return outcome;
    }
    outcome.status = report::kStatusError;
    outcome.reason = error.what();
  } catch (const CaseTimeout& error) {
    outcome.status = report::kStatusTimeout;
    outcome.reason = error.what();
  } catch (const Interrupted& interrupted) {
    stop_reason_ = interrupted.what();
    abort_all();
    throw;
  }
  stop_reason_ = outcome.reason;
  abort_all();
  return outcome;
}

CaseOutcome Runner::measure(RankSet& set, const Case& c) {
  CaseOutcome outcome;
  if (set.size() == 0) {
    outcome.participated = false;
    return outcome;
  }
  const CaseShape shape = c.shape();
  // Decided by the descriptor alone: no algorithm object (peer access, mapped memory, gathers
  // across processes) is made for rows that cannot run registered.
  if (std::string why = registration_skip_reason(c.registration, c.algo(),
                                                 c.algorithm.entry->capabilities.registered_buffers,
                                                 nccl_runtime_version_code());
      !why.empty()) {
    outcome.status = report::kStatusSkipped;
    outcome.reason = why;
    return outcome;
  }
  CollectiveAlgorithm& algorithm = set.algorithm(c.algorithm);
  if (std::string why = algorithm.unsupported_reason(shape); !why.empty()) {
    outcome.status = report::kStatusSkipped;
    outcome.reason = why;
    return outcome;
  }
  const Clock::time_point deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(settings_.timeout_s));
  const std::vector<RankContext>& ranks = set.contexts();
  LaunchCounts launched(set.size());
  // At a timeout: which ranks had not started what the others were waiting in.
  auto timeout_reason = [&](const std::vector<bool>& idle) {
    std::vector<RankProgress> local;
    for (int l = 0; l < set.size(); ++l) {
      local.push_back(local_rank_progress(set.count_rank(l), ranks[l].device, launched.launched(l),
                                          launched.expected(), idle[l]));
    }
    const bool ask_over_mpi = group_ && group_->mode() == LaunchMode::mpi;
    return describe_timeout(display_name(c), settings_.timeout_s, c.ranks, local, ask_over_mpi);
  };
  // A hand-built kernel that gave up waiting on a peer has finished; it must not pass as ok.
  // After a timeout the communicators are aborted at once: a host all-reduce frees its buffers on
  // the way out, and freeing waits for the hung kernels (host_collectives.hpp).
  auto wait = [&] {
    try {
      wait_for_ranks(set, deadline, timeout_reason);
    } catch (const CaseTimeout&) {
      set.abort_all();
      throw;
    }
    algorithm.check_health();
  };
  auto case_range = named_range(display_name(c), c.spec->nvtx_color, c.bytes());
  std::vector<RankFault> faults;
  for (int local = 0; local < set.size(); ++local)
    faults.push_back(rank_fault(settings_.fault, set.count_rank(local), c.ranks));
  // Every process must learn of an allocation failure anywhere before any launches a collective.
  std::string allocation_failure;
  try {
    if (settings_.fault.kind == FaultKind::fail_allocation) {
      throw GpuError("cudaMalloc failed (cudaErrorMemoryAllocation): injected out-of-memory fault", true);
    }
    set.buffers_for(c);
  } catch (const GpuError& error) {
    if (!error.out_of_memory()) throw;
    allocation_failure = error.what();
  }
  if (group_ && !all_processes_agree(set, allocation_failure.empty(), wait) && allocation_failure.empty()) {
    allocation_failure = "out of memory on another process";
  }
  if (!allocation_failure.empty()) throw GpuError(allocation_failure, true);
  if (std::string why = register_case_buffers(set, c, group_ != nullptr, wait); !why.empty()) {
    outcome.status = report::kStatusSkipped;
    outcome.reason = why;
    return outcome;
  }
  const std::vector<RankBuffers>& buffers = set.buffers_for(c);
  const kernels::PatternParams params = pattern_for(c, settings_.seed);
  algorithm.prepare(ranks, buffers, shape);
  fill_inputs(set, buffers, c, params);

  // Enqueues (or captures) one iteration of rank `local` from that rank's own thread.
  auto enqueue_rank = [&](int local, int aggregate) {
    algorithm.launch(set.context_of(local), {buffers[local]}, shape, aggregate);
  };
  auto launch_rank = [&](int local, int aggregate) {
    enqueue_rank(local, aggregate);
    launched.add(local);
  };
  if (nccl_choice_restricted(c)) {
    launched.expect(1);
    if (std::string refused =
            nccl_refusal(set, launch_rank, settings_.agg_iters, group_ != nullptr, wait);
        !refused.empty()) {
      algorithm.release();
      outcome.status = report::kStatusSkipped;
      outcome.reason = fmt::format("NCCL refuses it{}: {}",
                                   c.config().empty() ? "" : " with " + c.config(), refused);
      return outcome;
    }
  }
  {
    auto range = fixed_range<nvtx_names::warmup>(c.spec->nvtx_color, settings_.warmup_iters);
    launched.expect(settings_.warmup_iters);
    set.workers().run([&](int local) {
      for (int i = 0; i < settings_.warmup_iters; ++i) launch_rank(local, settings_.agg_iters);
    });
    wait();
  }

  const int iters = settings_.iters;
  const bool whole_loop = times_whole_loop(settings_);
  const bool graph = settings_.graph_replays > 0;
  // A sample is one iteration launched normally, one timed loop, or one graph replay.
  outcome.ops_per_sample = graph || whole_loop ? iters * settings_.agg_iters : settings_.agg_iters;
  const SampleEvents layout{!graph && !whole_loop};
  const std::size_t base_batch = graph ? settings_.graph_replays : whole_loop ? 1 : iters;
  // Graph mode: the timed iterations become one graph per rank; each replay is timed by events
  // around it (event nodes inside the graph would add the very overhead graphs remove).
  std::vector<GraphExec> executables(graph ? set.size() : 0);
  if (graph) {
    auto range = fixed_range<nvtx_names::graph_capture>(c.spec->nvtx_color, iters);
    set.workers().run([&](int local) {
      StreamCapture capture(set.context_of(local));
      for (int i = 0; i < iters; ++i) enqueue_rank(local, settings_.agg_iters);
      executables[local] = std::move(instantiate(capture.finish()).front());
    });
    // The first replay uploads the graphs; not timed.
    launched.expect(iters);
    set.workers().run([&](int local) {
      CB_CUDA_CHECK(cudaGraphLaunch(executables[local].get(), ranks[local].stream));
      launched.add(local, iters);
    });
    wait();
  }
  // Injected slow_rank: SMs held through the timed batches only. The warm-up and the graph's
  // upload have loaded every kernel by now: a module's (lazy) loading waits for an idle device,
  // which a running hog never leaves.
  std::vector<std::unique_ptr<SmHog>> hogs = hold_sms(ranks, faults);
  // Launch times count from one origin: every process leaves this agreement within microseconds.
  if (settings_.keep_rank_samples && group_) all_processes_agree(set, true, wait);
  const Clock::time_point origin = Clock::now();
  RankTable launch_us(set.size());
  set.workers().run([&](int local) { record_event(set.events(local, 1)[0], ranks[local]); });
  outcome.rank_start_us.assign(set.size(), {});
  outcome.rank_duration_us.assign(set.size(), {});
  std::size_t count = std::max(base_batch, next_step(settings_.stop, {}, outcome.ops_per_sample,
                                                     settings_.confidence, base_batch).next_samples);
  for (std::size_t batch_index = 0;; ++batch_index) {
    {
      auto range = fixed_range<nvtx_names::timed>(c.spec->nvtx_color, count * outcome.ops_per_sample);
      launched.expect(static_cast<std::int64_t>(count) * (graph || whole_loop ? iters : 1));
      set.workers().run([&](int local) {
        std::vector<Event>& events = set.events(local, layout.count_for(count));
        const RankFault& fault = faults[local];
        const bool skips = fault.skips_one && batch_index == 0;
        for (std::size_t s = 0; s < count; ++s) {
          if (fault.delay.count() > 0)
            std::this_thread::sleep_for(fault.delay);  // injected late_rank
          record_event(events[layout.start(s)], ranks[local]);
          launch_us[local].push_back(
              std::chrono::duration<double, std::micro>(Clock::now() - origin).count());
          if (graph) {
            CB_CUDA_CHECK(cudaGraphLaunch(executables[local].get(), ranks[local].stream));
            launched.add(local, iters);
          } else {
            const int launches = whole_loop ? iters : 1;
            for (int i = 0; i < launches; ++i) {
              // Injected skip_rank: the rank leaves one collective out, so the others wait forever.
              const bool middle = whole_loop ? s == 0 && i == iters / 2 : s == count / 2;
              if (skips && middle) continue;
              launch_rank(local, settings_.agg_iters);
            }
          }
          if (!layout.shared_boundaries) record_event(events[layout.end(s)], ranks[local]);
        }
        if (layout.shared_boundaries) record_event(events[layout.start(count)], ranks[local]);
      });
      wait();
    }
    std::vector<double> samples = collect_batch(set, layout, count, outcome.ops_per_sample, outcome);
    // Every process sees the same samples (the slowest process's), so all stop together.
    if (group_) all_reduce_host_values(set, samples, ncclMax, wait);
    outcome.iteration_us.insert(outcome.iteration_us.end(), samples.begin(), samples.end());
    const StopDecision next = next_step(settings_.stop, outcome.iteration_us, outcome.ops_per_sample,
                                        settings_.confidence, base_batch);
    if (next.done) {
      outcome.stop = next.reason;
      break;
    }
    count = next.next_samples;
  }
  hogs.clear();
  const bool split = c.communicator.split.has_value();
  if (settings_.keep_rank_samples || split) {
    RankTable per_operation_us = outcome.rank_duration_us;
    for (std::vector<double>& samples : per_operation_us) {
      for (double& us : samples) us /= outcome.ops_per_sample;
    }
    std::vector<RankTable> by_rank =
        gather_by_rank(set, c, outcome.iteration_us.size(), {per_operation_us, launch_us},
                       group_ != nullptr, wait);
    if (split) outcome.group_samples_us = slowest_per_group(by_rank[0], c.groups());
    if (settings_.keep_rank_samples) {
      outcome.rank_samples_us = std::move(by_rank[0]);
      outcome.rank_lateness_us = lateness_of(by_rank[1]);
    }
  }

  // Checked iterations (-c N): fresh inputs each time (the seed advances), outputs poisoned first,
  // mismatches summed over the iterations.
  if (settings_.check_iters > 0) {
    auto range = fixed_range<nvtx_names::check>(c.spec->nvtx_color, c.bytes());
    for (int local = 0; local < set.size(); ++local) {
      ScopedDevice on(ranks[local].device, ranks[local].rank);
      CB_CUDA_CHECK(cudaMemsetAsync(set.mismatch_counter(local), 0, sizeof(unsigned long long), ranks[local].stream));
    }
    const kernels::OutputRule& rule = c.spec->expected;
    const std::vector<const std::uint64_t*> segments = set.upload_receive_segments(c);
    for (int check = 0; check < settings_.check_iters; ++check) {
      // No rank may refill its inputs while a peer still reads them for the previous check.
      if (check > 0 && group_) all_processes_agree(set, true, wait);
      const kernels::PatternParams checked = pattern_for(c, settings_.seed + static_cast<std::uint64_t>(check));
      set.poison_outputs(c);
      fill_inputs(set, buffers, c, checked);
      launched.expect(1);
      set.workers().run([&](int local) { launch_rank(local, 1); });
      if (settings_.fault.kind == FaultKind::corrupt_output && check == 0) {
        corrupt_first_output(set, buffers, c, checked);
      }
      for (int local = 0; local < set.size(); ++local) {
        const RankContext& rank = ranks[local];
        if (rule.root_only && rank.rank != c.root) continue;
        ScopedDevice on(rank.device, rank.rank);
        kernels::PatternParams on_rank = checked;
        on_rank.segments = segments[local];
        kernels::launch_count_mismatches(buffers[local].recv, c.counts.recv, on_rank, rule, rank.rank,
                                         set.mismatch_counter(local), rank.stream);
        CB_CHECK_LAUNCH();
      }
      wait();
    }
    for (int local = 0; local < set.size(); ++local) {
      ScopedDevice on(ranks[local].device, ranks[local].rank);
      unsigned long long wrong = 0;
      CB_CUDA_CHECK(cudaMemcpy(&wrong, set.mismatch_counter(local), sizeof(wrong), cudaMemcpyDeviceToHost));
      outcome.wrong_elements += wrong;
    }
  }
  for (int local = 0; local < set.size(); ++local) {
    outcome.local_ranks.push_back(set.count_rank(local));
    outcome.local_devices.push_back(ranks[local].device);
  }
  // Every launch has completed: other processes' memory may be unmapped now, and the combine
  // below is the barrier after which every process may free what it exported.
  algorithm.release();
  if (group_) {
    std::vector<std::uint64_t> wrong = {outcome.wrong_elements};
    all_reduce_host_values(set, wrong, ncclSum, wait);
    outcome.wrong_elements = wrong.front();
  }
  outcome.status = report::kStatusOk;
  return outcome;
}

int visible_gpu_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // no driver or no device: zero GPUs, not an error
    return 0;
  }
  return count;
}

}  // namespace collbench
