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
#include "core/stop_rule.hpp"
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

// Every rank's per-operation samples, indexed by rank number, on every process (summed across
// processes, each contributing the ranks it holds).
template <typename Wait>
std::vector<std::vector<double>> gather_rank_samples(Runner::RankSet& set, const Case& c, const CaseOutcome& outcome,
                                                     bool multi_process, Wait&& wait) {
  const std::size_t samples = outcome.iteration_us.size();
  std::vector<double> flat(static_cast<std::size_t>(c.ranks) * samples, 0.0);
  for (int local = 0; local < set.size(); ++local) {
    const std::size_t rank = static_cast<std::size_t>(set.contexts()[local].rank);
    for (std::size_t s = 0; s < samples; ++s) {
      flat[rank * samples + s] = outcome.rank_duration_us[local][s] / outcome.ops_per_sample;
    }
  }
  if (multi_process) all_reduce_host_values(set, flat, ncclSum, wait);
  std::vector<std::vector<double>> per_rank(c.ranks);
  for (int rank = 0; rank < c.ranks; ++rank) {
    per_rank[rank].assign(flat.begin() + rank * samples, flat.begin() + (rank + 1) * samples);
  }
  return per_rank;
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
      for (int i = 0; i < iters; ++i) launch_rank(local, settings_.agg_iters);
      executables[local] = std::move(instantiate(capture.finish()).front());
    });
    // The first replay uploads the graphs; not timed.
    set.workers().run([&](int local) {
      CB_CUDA_CHECK(cudaGraphLaunch(executables[local].get(), ranks[local].stream));
    });
    wait();
  }
  set.workers().run([&](int local) { record_event(set.events(local, 1)[0], ranks[local]); });
  outcome.rank_start_us.assign(set.size(), {});
  outcome.rank_duration_us.assign(set.size(), {});
  // The communicator's last rank, wherever it runs (this process or another), in the first batch.
  auto skips_now = [&](int local, std::size_t batch_index) {
    return settings_.fault == FaultInjection::skip_rank && batch_index == 0 && c.ranks > 1 &&
           ranks[local].rank == c.ranks - 1;
  };
  std::size_t count = std::max(base_batch, next_step(settings_.stop, {}, outcome.ops_per_sample,
                                                     settings_.confidence, base_batch).next_samples);
  for (std::size_t batch_index = 0;; ++batch_index) {
    {
      auto range = fixed_range<nvtx_names::timed>(c.spec->nvtx_color, count * outcome.ops_per_sample);
      set.workers().run([&](int local) {
        std::vector<Event>& events = set.events(local, layout.count_for(count));
        const bool skips = skips_now(local, batch_index);
        for (std::size_t s = 0; s < count; ++s) {
          record_event(events[layout.start(s)], ranks[local]);
          if (graph) {
            CB_CUDA_CHECK(cudaGraphLaunch(executables[local].get(), ranks[local].stream));
          } else {
            const int launches = whole_loop ? iters : 1;
            for (int i = 0; i < launches; ++i) {
              // Injected fault: the last rank skips one collective, so the others wait forever.
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
  if (settings_.keep_rank_samples) {
    outcome.rank_samples_us = gather_rank_samples(set, c, outcome, group_ != nullptr, wait);
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
    for (int check = 0; check < settings_.check_iters; ++check) {
      // No rank may refill its inputs while a peer still reads them for the previous check.
      if (check > 0 && group_) all_processes_agree(set, true, wait);
      const kernels::PatternParams checked = pattern_for(c, settings_.seed + static_cast<std::uint64_t>(check));
      set.poison_outputs(c);
      fill_inputs(set, buffers, c, checked);
      set.workers().run([&](int local) { launch_rank(local, 1); });
      if (settings_.fault == FaultInjection::corrupt_output && check == 0) {
        corrupt_first_output(set, buffers, c, checked);
      }
      for (int local = 0; local < set.size(); ++local) {
        const RankContext& rank = ranks[local];
        if (rule.root_only && rank.rank != c.root) continue;
        ScopedDevice on(rank.device, rank.rank);
        kernels::launch_count_mismatches(buffers[local].recv, c.counts.recv, checked, rule, rank.rank,
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
  for (const RankContext& rank : ranks) {
    outcome.local_ranks.push_back(rank.rank);
    outcome.local_devices.push_back(rank.device);
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
