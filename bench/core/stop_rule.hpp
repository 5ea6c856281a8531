// When a case's timed iterations end: after a fixed count (-n iterations, -G replays), or, with
// --max-noise, once the confidence intervals of the median and of the mean are both narrow enough
// (nvbench's stopping criterion, judged on the intervals of the reported figures rather than on
// the samples' spread: p50 is the median's, busbw the mean's).
// Pure: the runner asks after every batch, and every process of a run gets the same answer
// because it sees the same (combined) samples.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace collbench {

// The defaults cost the standard sweep 1.1x the wall time of fixed iterations (18.3-18.8 s
// against 16.8 s on 2xH200, reports/h200x2/stability/), with every case converged, when the rule
// watched the median alone; cases with stray slow samples now run longer (estimated from those
// rows' spread: a fifth of the cases to --max-time, about 10 s more timed work a pass).
struct StopRule {
  double max_noise_pct = 1;  // 0: fixed iterations; else the median's widest half-width, % of it
  // The mean's widest half-width, % of it. Looser than the median's: the mean of skewed samples
  // settles far more slowly, and what it must catch is a stray sample that moves it by tens of
  // percent (one of 2.4 ms among twenty of 330 us moves it by 31%).
  double max_mean_noise_pct = 3;
  int min_samples = 20;  // floors that must be met before the interval may end a case
  double min_time_s = 0;
  double max_time_s = 0.1;  // ends the case even when the interval is still wide
  bool adaptive() const { return max_noise_pct > 0; }
};

struct StopDecision {
  bool done = false;
  std::string reason;            // report::kStop* once done
  std::size_t next_samples = 0;  // how many samples the next batch takes, when not done
};

// `samples_us`: every per-operation sample so far; each covers `ops_per_sample` operations, so
// the timed GPU time is their sum times that. `base_batch`: the samples of one -n/-G batch. The
// next batch grows with the samples so far (judging sorts them all) but never past the time
// left to --max-time.
StopDecision next_step(const StopRule& rule, const std::vector<double>& samples_us,
                       int ops_per_sample, double confidence, std::size_t base_batch);

// The timed GPU time of `samples_us`, in seconds.
double timed_seconds(const std::vector<double>& samples_us, int ops_per_sample);

}  // namespace collbench
