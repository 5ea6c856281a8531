// Which rank of a collective came last, judged from the GPUs: the rule collbench_diagnose,
// `collreport ranks` and the per-rank fields of `collbench --json` share.
//
// The ranks of a symmetric collective (all_reduce, all_gather, reduce_scatter, alltoall) finish
// at about the same time, so a rank that arrives late has the *shortest* duration and its peers'
// durations grow by its delay. A rank's GPU lateness in one sample is therefore the longest
// duration of that sample minus its own (no common clock needed: CUDA events of different GPUs
// cannot be subtracted), and the time it waited is its own duration minus the shortest. Host
// lateness (when the rank's thread launched, against the earliest rank of the same host, whose
// clock it shares) says whether the cause is the host (CPU, scheduling) or the GPU (busy SMs).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace collbench::stats {

// One rank over the samples of one collective.
struct RankArrival {
  double gpu_lateness_us = 0;          // mean (LatenessMean) of (longest duration - own duration)
  double gpu_lateness_spread_us = 0;   // 1.4826 x the median absolute deviation of those
  double waited_us = 0;                // mean over samples of (own duration - shortest duration)
  bool host_known = false;             // another rank launched on the same host clock
  double host_lateness_us = 0;         // mean (LatenessMean) of (own launch - its host's earliest)
  double host_lateness_spread_us = 0;  // 1.4826 x the median absolute deviation of those
  int host = 0;                        // host_of[rank] (0 with one host)
  // Every sample's lateness, in sample order (host: empty unless host_known), for the evidence.
  std::vector<double> gpu_lateness_samples_us;
  std::vector<double> host_lateness_samples_us;
};

// How the lateness figures average their samples.
enum class LatenessMean {
  // Every sample: a sweep's samples run back to back, and a GPU time-sliced with another
  // program's work delays only some of them, by a slice each (collreport ranks' 25%-of-cases
  // rule keeps one-offs unnamed there).
  all_samples,
  // The latest tenth of the samples (none below 10) set aside: where every sample is its own
  // scheduled event (collbench_diagnose's arrival probe), a lasting fault shows in most of them,
  // and one sample the OS delayed by milliseconds (a 4xH100 VM, one process: about one in 30)
  // must not make a healthy rank late.
  latest_tenth_aside,
};

// The mean of `values` without its largest tenth (rounded down).
double trimmed_lateness_mean(std::vector<double> values);

// `duration_us[rank][sample]`: each rank's own duration of every sample (all ranks the same
// number of samples). `launch_us[rank][sample]`: when the rank's host launched the sample, on
// its host's clock (empty: not recorded). `host_of[rank]`: any value equal for ranks sharing a
// host clock (empty: one host). Throws std::invalid_argument for ragged tables.
std::vector<RankArrival> summarize_arrivals(const std::vector<std::vector<double>>& duration_us,
                                            const std::vector<std::vector<double>>& launch_us,
                                            const std::vector<int>& host_of,
                                            LatenessMean mean = LatenessMean::all_samples);

struct ArrivalRule {
  // A rank is late when its lateness exceeds every one of: floor_us (launch jitter), op_share x
  // the op time (a delay that costs a visible share of every op), and the other ranks' median
  // lateness plus spread_factor x their spread (the run's own noise of that figure). That spread
  // is the larger of the robust spread (1.4826 x MAD) of the other ranks' means and the pooled
  // (root mean square) per-sample spread of the other ranks: the first alone collapses when a few
  // others happen to agree (of 3 values the MAD is the smaller of two deviations), the second
  // alone misses ranks that differ steadily (one further away on the fabric). Host lateness is
  // judged the same way against the other ranks of the same host.
  double floor_us = 20;
  double op_share = 0.05;
  double spread_factor = 5;
  // Host lateness is judged the same way with its own floor: where each sample's launch follows a
  // barrier (collbench_diagnose's arrival probe) host jitter is that of the GPU; where ranks
  // enqueue whole gated rounds (a collbench sweep) their hosts drift apart by up to about a
  // millisecond in clean runs (4xH100: 99th percentile 1.4 ms of 35 cases under mpirun), and
  // collreport ranks raises it.
  double host_floor_us = 20;
  // A late rank's host is the cause when its host is late itself and its host lateness is at
  // least this share of its GPU lateness (or when only the host was late: a start gate absorbed
  // it on the GPU).
  double host_share = 0.5;
  // No spread is taken as smaller than this: CUDA events resolve about 0.5 us, so a smaller
  // spread is rounding, and margins in units of it would be meaningless (or divide by zero).
  double resolution_us = 0.5;
};

enum class LateCause {
  none,     // on time
  host,     // its host launched late (CPU starvation, scheduling): starved_host
  gpu,      // its host launched on time, its GPU started late (busy SMs): slow_gpu
  unknown,  // late on the GPU, and no host clock to compare with (a rank alone on its host)
};
const char* late_cause_name(LateCause cause);  // "on_time", "host", "gpu", "unknown"

struct RankArrivalJudgement {
  bool late = false;
  LateCause cause = LateCause::none;
  bool waiting = false;      // not late, and it waited more than the limit for a later rank
  double limit_us = 0;       // the GPU lateness above which this rank would be late
  double host_limit_us = 0;  // the host lateness above which it would be late (0: !host_known)
  // How far its lateness stood from that limit, in units of the others' spread (negative: below):
  // the GPU figure, or the host figure when only its host was late.
  double margin_spreads = 0;
};

struct ArrivalJudgement {
  std::vector<RankArrivalJudgement> ranks;  // index = rank
  // The late rank with the highest GPU lateness, or, when only hosts were late, with the highest
  // host lateness; -1: none.
  int latest_rank = -1;
};

// Judges each rank against the others (see ArrivalRule). `op_time_us`: the case's time of one
// operation. Fewer than two ranks: nothing to compare with, none late.
ArrivalJudgement judge_arrivals(const std::vector<RankArrival>& ranks, double op_time_us,
                                const ArrivalRule& rule = {});

// Whether every rank of `op` ends with the last arrival, so that the rule applies: all_reduce,
// all_gather, reduce_scatter, alltoall, alltoallv. Rooted ops (broadcast, reduce, gather,
// scatter) and sendrecv end at different times on different ranks by design.
bool finishes_together(std::string_view op);

}  // namespace collbench::stats
