// Timed work on local ranks, with launch times and a polled deadline.
#include "rank_timing.hpp"

#include <atomic>
#include <memory>
#include <optional>

#include "core/errors.hpp"
#include "runtime/host_collectives.hpp"
#include "runtime/sm_hog.hpp"

namespace collbench::diagnose {
namespace {

void record(const Event& event, cudaStream_t stream) {
  CB_CUDA_CHECK(cudaEventRecord(event.get(), stream));
}

// Waits for every taking-part rank's stream as every host wait does (polled, so that a peer that
// never comes ends in a timeout); at the deadline, throws RanksTimedOut with each local rank's
// progress.
void wait_or_name(Runner::RankSet& set, const TimedWork& work, const std::vector<std::atomic<int>>& launched,
                  int expected) {
  std::vector<RankContext> taking_part;
  for (int local = 0; local < set.size(); ++local) {
    if (work.takes_part[local]) taking_part.push_back(set.contexts()[local]);
  }
  try {
    wait_for_streams(taking_part, work.timeout_s, work.what);
  } catch (const CaseTimeout& timeout) {
    std::vector<RankProgress> progress;
    for (int local = 0; local < set.size(); ++local) {
      if (!work.takes_part[local]) continue;
      const RankContext& rank = set.contexts()[local];
      ScopedDevice on(rank.device, rank.rank);
      const bool idle = cudaStreamQuery(rank.stream) == cudaSuccess;
      progress.push_back(local_rank_progress(rank.rank, rank.device, launched[local].load(), expected, idle));
    }
    throw RanksTimedOut(timeout.what(), progress);
  }
}

}  // namespace

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
    if (work.align_start) work.align_start();
    const Clock::time_point origin = Clock::now();
    set.workers().run([&](int local) {
      if (!work.takes_part[local]) return;
      const RankContext& rank = set.contexts()[local];
      std::vector<Event>& events = set.events(local, 2 * work.iterations);
      RankTimes& mine = times[local];
      mine.took_part = true;
      for (int t = 0; t < work.iterations; ++t) {
        if (work.before_launch) work.before_launch(local);
        mine.launch_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - origin).count());
        record(events[2 * t], rank.stream);
        if (work.launch(local, true)) ++launched[local];
        record(events[2 * t + 1], rank.stream);
      }
    });
    wait_or_name(set, work, launched, work.warmup + work.iterations);
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
  }
  return times;
}

}  // namespace collbench::diagnose
