// Timed work on the ranks this process drives, for the diagnosis's probes: each taking part
// rank's own thread enqueues its iterations between events and notes the host time of every
// launch (arrival), and the wait polls so that a rank that never comes ends in RanksTimedOut
// naming who had not started and who was waiting, rather than in a hang.
#pragma once

#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "measure/case_progress.hpp"
#include "measure/rank_set.hpp"

namespace collbench::diagnose {

using Clock = std::chrono::steady_clock;

struct RankTimes {
  bool took_part = false;
  std::vector<double> duration_us;  // per timed iteration, between the rank's own events
  double span_us = 0;               // from the first timed iteration's start to the last's end
  // Host time of each timed launch (steady clock, us): one clock for every process of a host.
  std::vector<double> launch_us;
};

// The steady clock now, in us since its epoch (the host's boot: shared by its processes).
double steady_now_us();

// 1.4826 x the median absolute deviation of `samples` over their median: their spread, relative
// (0.01 = 1%); 0 for fewer than two samples or a zero median.
double relative_spread(const std::vector<double>& samples);

class RanksTimedOut : public std::runtime_error {
 public:
  RanksTimedOut(const std::string& what, std::vector<RankProgress> progress)
      : std::runtime_error(what), progress_(std::move(progress)) {}
  const std::vector<RankProgress>& progress() const { return progress_; }

 private:
  std::vector<RankProgress> progress_;
};

struct TimedWork {
  std::vector<bool> takes_part;  // per local rank
  int warmup = 2;
  int iterations = 5;
  // Enqueues one iteration on local rank `local`'s stream (`timed`: past the warm-up); returns
  // false when the rank skips it (the absent-rank fault).
  std::function<bool(int local, bool timed)> launch;
  std::function<void(int local)> before_launch;  // the late-rank fault, or nothing
  // The slow-GPU fault: an SmHog holds this share of local rank `slow_local`'s SMs while the
  // timed iterations run, and only then: freeing memory and loading a kernel's module wait for
  // the device to be idle, which they would do forever under a hog still holding it.
  int slow_local = -1;
  double slow_share = 0;
  double timeout_s = 30;
  std::string what;  // for messages: "all_reduce on ranks 0-3"
  // The start gate: with gated_ranks_on_host > 0 (the taking-part ranks of this host, the same
  // count on every process of the host), each timed iteration is a round of the set's gate, so
  // that every taking-part rank's iteration starts together on the GPUs and when a host launched
  // enters no figure. Every process calls time_on_ranks for it, taking part or not.
  int gated_ranks_on_host = 0;
  // When set, timed iteration t is launched at launch_at_us(t) (steady clock, us since its epoch:
  // one clock on a host) on every rank, far enough apart that each completes before the next: a
  // host that wakes late (CPU starvation) launches late, a GPU busy with other work starts late,
  // and nothing queued hides either, as in a job whose ranks meet every step.
  std::function<double(int iteration)> launch_at_us;
};

// The test-only faults as the probes apply them (diagnose_options.hpp, InjectedFault).
struct ProbeFaults {
  std::function<void(int local)> before_launch;  // late rank: sleeps before each launch
  int slow_local = -1;                           // slow GPU: the local rank whose SMs are held
  double slow_share = 0;
  std::function<bool(int local)> skips;  // absent rank: launches none of the timed iterations
  void apply_to(TimedWork& work) const {
    work.before_launch = before_launch;
    work.slow_local = slow_local;
    work.slow_share = slow_share;
  }
};

// Runs `work` on every local rank that takes part; one RankTimes per local rank, launch times
// from the moment align_start returned. On any failure (a timeout, an error, a signal) the SMs
// are released and the set's communicators aborted before the exception leaves: freeing a
// buffer synchronises the device, which would wait for a hung kernel forever.
std::vector<RankTimes> time_on_ranks(Runner::RankSet& set, const TimedWork& work);

}  // namespace collbench::diagnose
