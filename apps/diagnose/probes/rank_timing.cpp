// Timed work on local ranks, with launch times and a polled deadline.
#include "probes/rank_timing.hpp"

#include <atomic>
#include <cmath>
#include <memory>
#include <optional>
#include <thread>

#include "core/errors.hpp"
#include "reports/statistics.hpp"
#include "runtime/completion_wait.hpp"
#include "runtime/sm_hog.hpp"
#include "runtime/start_gate.hpp"

namespace collbench::diagnose {
namespace {

void record(const Event& event, cudaStream_t stream) {
  CB_CUDA_CHECK(cudaEventRecord(event.get(), stream));
}

// Waits for every taking-part rank's stream as every host wait does (polled, so that a peer that
// never comes ends in a timeout); at the deadline, throws RanksTimedOut with each local rank's
// progress.
void wait_or_name(Runner::RankSet& set, const TimedWork& work,
                  const std::vector<std::atomic<int>>& launched, int expected) {
  std::vector<int> taking_part;  // local ranks, in the order of the wait's targets
  for (int local = 0; local < set.size(); ++local) {
    if (work.takes_part[local]) taking_part.push_back(local);
  }
  std::vector<CompletionTarget> streams;
  for (int local : taking_part) streams.push_back(stream_target(set.contexts()[local]));
  try {
    wait_for_completion(streams, WaitDeadline::after(work.timeout_s), work.what);
  } catch (const CompletionTimeout& timeout) {
    std::vector<RankProgress> progress;
    for (std::size_t i = 0; i < taking_part.size(); ++i) {
      const RankContext& rank = set.contexts()[taking_part[i]];
      progress.push_back(local_rank_progress(
          rank.rank, rank.device, launched[taking_part[i]].load(), expected, timeout.done()[i]));
    }
    throw RanksTimedOut(timeout.what(), progress);
  }
}

// Before arriving for its next round, a rank waits for its last one to open (start_gate.hpp). A
// peer that never arrives ends this wait at the deadline; the rank then goes on ungated, and the
// wait for its streams names the missing peer.
void await_round(const StartGate& gate, std::uint64_t ticket, Clock::time_point deadline) {
  // Briefly spinning, then sleeping: on a host starved of CPU, waiting ranks must not take the
  // core from the one still enqueueing.
  for (int polls = 0; !gate.is_open(ticket) && Clock::now() < deadline; ++polls) {
    if (polls < 100) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  }
}

// Sleeps until a millisecond before `when_us` (steady clock), then spins to it: a thread that is
// not given the CPU for that long is late by as much, which is what a schedule measures, while a
// sleeping virtual CPU that the hypervisor wakes some tens of microseconds late is not.
void wait_until_us(double when_us) {
  const double early_us = when_us - 1000;
  if (steady_now_us() < early_us) {
    std::this_thread::sleep_for(
        std::chrono::duration<double, std::micro>(early_us - steady_now_us()));
  }
  while (steady_now_us() < when_us) {
  }
}

// Rank `local`'s timed iterations [first, last), each between its own events, each a gated round
// when asked, each at its scheduled time when there is a schedule.
void time_rank(Runner::RankSet& set, const TimedWork& work, int local, int first, int last,
               const std::vector<std::uint64_t>& tickets, std::atomic<int>& launched,
               RankTimes& mine, Clock::time_point deadline) {
  const RankContext& rank = set.contexts()[local];
  std::vector<Event>& events = set.events(local, 2 * work.iterations);
  mine.took_part = true;
  for (int t = first; t < last; ++t) {
    if (work.launch_at_us) wait_until_us(work.launch_at_us(t));
    if (work.before_launch) work.before_launch(local);
    {
      std::optional<GateArrival> arrival;
      if (!tickets.empty()) {
        arrival.emplace(set.gate());
        set.gate().hold(rank.device, rank.stream, tickets[t], work.timeout_s);
      }
      mine.launch_us.push_back(steady_now_us());
      record(events[2 * t], rank.stream);
      if (work.launch(local, true)) ++launched;
      record(events[2 * t + 1], rank.stream);
    }
    if (!tickets.empty()) await_round(set.gate(), tickets[t], deadline);
  }
}

// The timed iterations of every taking-part local rank, from each rank's own thread.
void time_iterations(Runner::RankSet& set, const TimedWork& work,
                     std::vector<std::atomic<int>>& launched, std::vector<RankTimes>& times) {
  // Every process counts every round, taking part or not, so tickets agree across the host.
  std::vector<std::uint64_t> tickets;
  for (int t = 0; work.gated_ranks_on_host > 0 && t < work.iterations; ++t) {
    tickets.push_back(set.gate().next_round(work.gated_ranks_on_host));
  }
  const Clock::time_point deadline =
      Clock::now() +
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(work.timeout_s));
  set.workers().run([&](int local) {
    if (work.takes_part[local])
      time_rank(set, work, local, 0, work.iterations, tickets, launched[local], times[local],
                deadline);
  });
  wait_or_name(set, work, launched, work.warmup + work.iterations);
  set.gate().check();
}

}  // namespace

double relative_spread(const std::vector<double>& samples) {
  if (samples.size() < 2) return 0;
  const double median = stats::median(samples);
  std::vector<double> deviations;
  for (double value : samples) deviations.push_back(std::abs(value - median));
  return median > 0 ? 1.4826 * stats::median(deviations) / median : 0;
}

double steady_now_us() {
  return std::chrono::duration<double, std::micro>(Clock::now().time_since_epoch()).count();
}

std::vector<RankTimes> time_on_ranks(Runner::RankSet& set, const TimedWork& work) {
  const int locals = set.size();
  std::vector<RankTimes> times(locals);
  std::vector<std::atomic<int>> launched(locals);
  std::optional<SmHog> hog;
  try {
    // The warm-up runs and ends before the SMs are held: it loads every kernel the work uses.
    // CUDA loads a kernel's module on its first launch (lazy loading), and loading waits for the
    // device to be idle, which a running hog never lets it be.
    set.workers().run([&](int local) {
      if (!work.takes_part[local]) return;
      set.events(local, 2 * work.iterations);  // made now: nothing new starts under the hog
      for (int i = 0; i < work.warmup; ++i) {
        if (work.before_launch) work.before_launch(local);
        if (work.launch(local, false)) ++launched[local];
      }
    });
    wait_or_name(set, work, launched, work.warmup);
    if (work.slow_local >= 0 && work.slow_local < locals) {
      hog.emplace(set.contexts()[work.slow_local].device, work.slow_share);
    }
    time_iterations(set, work, launched, times);
  } catch (...) {
    // The hog first: an NCCL kernel that never found room would otherwise keep the abort waiting.
    hog.reset();
    set.abort_all();
    throw;
  }
  hog.reset();
  for (int local = 0; local < locals; ++local) {
    if (!work.takes_part[local]) continue;
    const std::vector<Event>& events = set.events(local, 2 * work.iterations);
    for (int t = 0; t < work.iterations; ++t) {
      times[local].duration_us.push_back(1000.0 * elapsed_ms(events[2 * t], events[2 * t + 1]));
    }
    times[local].span_us = 1000.0 * elapsed_ms(events.front(), events[2 * work.iterations - 1]);
  }
  return times;
}

}  // namespace collbench::diagnose
