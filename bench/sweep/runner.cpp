// Measuring one case: buffers, warm-up, timed iterations (eager or CUDA graph), checked run.
#include "sweep/runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "core/errors.hpp"
#include "fill_check.hpp"
#include "runtime/host_collectives.hpp"
#include "launch/interrupt.hpp"
#include "telemetry/nvtx.hpp"
#include "launch/process_group.hpp"
#include "sweep/rank_set.hpp"
#include "report_row.hpp"
#include "runtime/stream_capture.hpp"

namespace collbench {
namespace {

using Clock = std::chrono::steady_clock;

// Waits until every rank's stream is idle, watching for NCCL asynchronous errors, signals and
// the case's deadline. Polling (rather than blocking) is what lets a hang be abandoned.
void wait_for_ranks(Runner::RankSet& set, Clock::time_point deadline, const Case& c, double timeout_s) {
  for (int polls = 0;; ++polls) {
    bool idle = true;
    for (const RankContext& rank : set.contexts()) {
      const cudaError_t status = cudaStreamQuery(rank.stream);
      if (status == cudaErrorNotReady) {
        idle = false;
      } else if (status != cudaSuccess) {
        ScopedDevice on(rank.device, rank.rank);
        throw_cuda_error(status, "cudaStreamQuery (work of the case)", __FILE__, __LINE__);
      }
    }
    if (idle) return;
    throw_if_interrupted();
    for (NcclCommunicator& communicator : set.communicators()) communicator.check_async_error();
    if (Clock::now() > deadline) {
      throw CaseTimeout(fmt::format("{} ({} ranks, {} B) did not finish within {:g} s", display_name(c), c.ranks,
                                    c.bytes(), timeout_s));
    }
    // Spin briefly (small cases finish in microseconds), then back off to spare the CPU.
    if (polls < 2000) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  }
}

kernels::PatternParams pattern_for(const Case& c, std::uint64_t seed) {
  return {seed,
          c.ranks,
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

// Appends the per-iteration times (slowest rank, per operation) recorded by `count`+1 events per rank.
void collect_iteration_times(Runner::RankSet& set, int count, int agg_iters, CaseOutcome& outcome) {
  const int ranks = set.size();
  outcome.rank_start_us.assign(ranks, {});
  outcome.rank_duration_us.assign(ranks, {});
  for (int local = 0; local < ranks; ++local) {
    const std::vector<Event>& events = set.events(local, count + 1);
    for (int i = 0; i < count; ++i) {
      outcome.rank_start_us[local].push_back(1000.0 * elapsed_ms(events[0], events[i]));
      outcome.rank_duration_us[local].push_back(1000.0 * elapsed_ms(events[i], events[i + 1]));
    }
  }
  for (int i = 0; i < count; ++i) {
    double slowest_us = 0;
    for (int local = 0; local < ranks; ++local) slowest_us = std::max(slowest_us, outcome.rank_duration_us[local][i]);
    outcome.iteration_us.push_back(slowest_us / agg_iters);
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

// One sample per graph replay: the slowest rank's replay time over the operations it holds.
void collect_replay_times(Runner::RankSet& set, int replays, int operations_per_replay, CaseOutcome& outcome) {
  const int ranks = set.size();
  outcome.rank_start_us.assign(ranks, {});
  outcome.rank_duration_us.assign(ranks, {});
  for (int local = 0; local < ranks; ++local) {
    const std::vector<Event>& events = set.events(local, 1 + 2 * replays);
    for (int r = 0; r < replays; ++r) {
      outcome.rank_start_us[local].push_back(1000.0 * elapsed_ms(events[0], events[1 + 2 * r]));
      outcome.rank_duration_us[local].push_back(1000.0 * elapsed_ms(events[1 + 2 * r], events[2 + 2 * r]));
    }
  }
  for (int r = 0; r < replays; ++r) {
    double slowest_us = 0;
    for (int local = 0; local < ranks; ++local) slowest_us = std::max(slowest_us, outcome.rank_duration_us[local][r]);
    outcome.iteration_us.push_back(slowest_us / operations_per_replay);
  }
}

// All-reduces `values` (length and order identical on every process) over the case's
// communicator with `op`, on the one local rank's stream.
template <typename Value, typename Wait>
void all_reduce_host_values(Runner::RankSet& set, std::vector<Value>& values, ncclRedOp_t op, Wait&& wait) {
  values = all_reduce_host_values<Value>({set.contexts().front()}, {values}, op, wait);
}

// True when `ok` holds on every process of the case.
template <typename Wait>
bool all_processes_agree(Runner::RankSet& set, bool ok, Wait&& wait) {
  std::vector<std::int32_t> flag = {ok ? 1 : 0};
  all_reduce_host_values(set, flag, ncclMin, wait);
  return flag.front() == 1;
}

// Each iteration's time becomes the slowest process's; wrong elements are summed.
template <typename Wait>
void combine_across_processes(Runner::RankSet& set, CaseOutcome& outcome, Wait&& wait) {
  all_reduce_host_values(set, outcome.iteration_us, ncclMax, wait);
  std::vector<std::uint64_t> wrong = {static_cast<std::uint64_t>(outcome.wrong_elements)};
  all_reduce_host_values(set, wrong, ncclSum, wait);
  outcome.wrong_elements = wrong.front();
}

}  // namespace

Runner::Runner(const RunSettings& settings, ProcessGroup* group) : settings_(settings), group_(group) {}

Runner::~Runner() {
  if (stopped()) abort_all();
}

void Runner::abort_all() noexcept {
  for (auto& [ranks, set] : sets_) set->abort_all();
}

Runner::RankSet& Runner::rank_set(int ranks) {
  auto found = sets_.find(ranks);
  if (found != sets_.end()) return *found->second;
  // The sweep is grouped by GPU count: free the previous count's buffers and communicators first.
  sets_.clear();
  auto set = group_ ? std::make_unique<RankSet>(*group_, ranks) : std::make_unique<RankSet>(ranks);
  return *sets_.emplace(ranks, std::move(set)).first->second;
}

CaseOutcome Runner::run(const Case& c) {
  CaseOutcome outcome;
  try {
    return measure(rank_set(c.ranks), c);
  } catch (const GpuError& error) {
    if (error.out_of_memory()) {
      if (auto found = sets_.find(c.ranks); found != sets_.end()) found->second->release_buffers();
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
  const CaseShape shape{c.spec, c.counts, c.type, c.op, c.root, c.ranks, c.in_place};
  CollectiveAlgorithm& algorithm = set.algorithm(c.algorithm);
  if (std::string why = algorithm.unsupported_reason(shape); !why.empty()) {
    outcome.status = report::kStatusSkipped;
    outcome.reason = why;
    return outcome;
  }
  const Clock::time_point deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(settings_.timeout_s));
  // A hand-built kernel that gave up waiting on a peer has finished; it must not pass as ok.
  auto wait = [&] {
    wait_for_ranks(set, deadline, c, settings_.timeout_s);
    algorithm.check_health();
  };
  auto case_range = named_range(display_name(c), c.spec->nvtx_color, c.bytes());
  const std::vector<RankContext>& ranks = set.contexts();
  // Every process must learn of an allocation failure anywhere before any launches a collective.
  std::string allocation_failure;
  try {
    if (settings_.fault == FaultInjection::fail_allocation) {
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
  const std::vector<RankBuffers>& buffers = set.buffers_for(c);
  const kernels::PatternParams params = pattern_for(c, settings_.seed);
  algorithm.prepare(ranks, buffers, shape);
  fill_inputs(set, buffers, c, params);

  // Enqueues one iteration of rank `local` from that rank's own thread.
  auto launch_rank = [&](int local, int aggregate) {
    algorithm.launch(set.context_of(local), {buffers[local]}, shape, aggregate);
  };
  {
    auto range = fixed_range<nvtx_names::warmup>(c.spec->nvtx_color, settings_.warmup_iters);
    set.workers().run([&](int local) {
      for (int i = 0; i < settings_.warmup_iters; ++i) launch_rank(local, settings_.agg_iters);
    });
    wait();
  }

  const int iters = settings_.iters;
  if (settings_.graph_replays == 0) {
    auto range = fixed_range<nvtx_names::timed>(c.spec->nvtx_color, iters);
    // Loop timing records the events of one replay-like sample: reference, start, end.
    const bool whole_loop = times_whole_loop(settings_);
    set.workers().run([&](int local) {
      std::vector<Event>& events = set.events(local, whole_loop ? 3 : iters + 1);
      // The communicator's last rank, wherever it runs (this process or another).
      const bool skips = settings_.fault == FaultInjection::skip_rank && c.ranks > 1 && ranks[local].rank == c.ranks - 1;
      if (whole_loop) {
        record_event(events[0], ranks[local]);
        record_event(events[1], ranks[local]);
      }
      for (int i = 0; i < iters; ++i) {
        if (!whole_loop) record_event(events[i], ranks[local]);
        // Injected fault: the last rank skips one collective, so the others wait for it forever.
        if (skips && i == iters / 2) continue;
        launch_rank(local, settings_.agg_iters);
      }
      record_event(events[whole_loop ? 2 : iters], ranks[local]);
    });
    wait();
    if (whole_loop) {
      collect_replay_times(set, 1, iters * settings_.agg_iters, outcome);
    } else {
      collect_iteration_times(set, iters, settings_.agg_iters, outcome);
    }
  } else {
    // The timed iterations become one graph per rank; each replay is timed by events around it
    // (event nodes inside the graph would add the very overhead graphs remove).
    std::vector<GraphExec> executables(set.size());
    {
      auto range = fixed_range<nvtx_names::graph_capture>(c.spec->nvtx_color, iters);
      set.workers().run([&](int local) {
        StreamCapture capture(set.context_of(local));
        for (int i = 0; i < iters; ++i) launch_rank(local, settings_.agg_iters);
        executables[local] = std::move(instantiate(capture.finish()).front());
      });
    }
    const int replays = settings_.graph_replays;
    auto replay_all = [&](int count) {
      set.workers().run([&](int local) {
        std::vector<Event>& events = set.events(local, 1 + 2 * count);
        record_event(events[0], ranks[local]);
        for (int r = 0; r < count; ++r) {
          record_event(events[1 + 2 * r], ranks[local]);
          CB_CUDA_CHECK(cudaGraphLaunch(executables[local].get(), ranks[local].stream));
          record_event(events[2 + 2 * r], ranks[local]);
        }
      });
      wait();
    };
    replay_all(1);  // uploads the graphs; not timed
    auto range = fixed_range<nvtx_names::timed>(c.spec->nvtx_color, iters * replays);
    replay_all(replays);
    collect_replay_times(set, replays, iters * settings_.agg_iters, outcome);
  }

  if (settings_.check) {
    auto range = fixed_range<nvtx_names::check>(c.spec->nvtx_color, c.bytes());
    set.poison_outputs(c);
    fill_inputs(set, buffers, c, params);
    for (int local = 0; local < set.size(); ++local) {
      ScopedDevice on(ranks[local].device, ranks[local].rank);
      CB_CUDA_CHECK(cudaMemsetAsync(set.mismatch_counter(local), 0, sizeof(unsigned long long), ranks[local].stream));
    }
    set.workers().run([&](int local) { launch_rank(local, 1); });
    const kernels::OutputRule& rule = c.spec->expected;
    if (settings_.fault == FaultInjection::corrupt_output) corrupt_first_output(set, buffers, c, params);
    for (int local = 0; local < set.size(); ++local) {
      const RankContext& rank = ranks[local];
      if (rule.root_only && rank.rank != c.root) continue;
      ScopedDevice on(rank.device, rank.rank);
      kernels::launch_count_mismatches(buffers[local].recv, c.counts.recv, params, rule, rank.rank,
                                       set.mismatch_counter(local), rank.stream);
      CB_CHECK_LAUNCH();
    }
    wait();
    for (int local = 0; local < set.size(); ++local) {
      ScopedDevice on(ranks[local].device, ranks[local].rank);
      unsigned long long wrong = 0;
      CB_CUDA_CHECK(cudaMemcpy(&wrong, set.mismatch_counter(local), sizeof(wrong), cudaMemcpyDeviceToHost));
      outcome.wrong_elements += wrong;
    }
  }
  for (const RankContext& rank : ranks) {
    outcome.local_ranks.push_back(rank.rank);
    outcome.local_devices.push_back(rank.device);
  }
  // Every launch has completed: other processes' memory may be unmapped now, and the combine
  // below is the barrier after which every process may free what it exported.
  algorithm.release();
  if (group_) combine_across_processes(set, outcome, wait);
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
