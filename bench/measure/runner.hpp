// The runner: owns the GPUs' communicators, streams, events and buffers, and measures one case
// at a time (warm-up, timed iterations with CUDA events or a CUDA graph, then a checked run).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/case.hpp"
#include "measure/measure_settings.hpp"
#include "measure/measurement_hooks.hpp"

namespace collbench {

class ProcessGroup;

struct CaseOutcome {
  bool participated = true;  // false: this process holds none of the case's ranks
  std::string status;        // report::kStatus*
  std::string reason;
  // The samples: per operation, slowest rank, one per timed iteration (graph mode: per replay;
  // loop timing: per timed loop), each covering `ops_per_sample` operations; why they ended.
  std::vector<double> iteration_us;
  int ops_per_sample = 1;
  // Per operation, the slowest rank's mean over every timed sample: nccl-tests' time (each rank
  // times its whole loop, the slowest rank's counts), which the mean of the per-sample slowest
  // overstates when ranks' samples end at staggered times (rooted ops, sendrecv, alltoall).
  // The same on every process; 0 when nothing was timed.
  double slowest_rank_mean_us = 0;
  std::string stop;
  std::uint64_t wrong_elements = 0;
  // Per local rank (its rank number and GPU), each sample's start offset from the case's first
  // and its duration (us, the whole sample), for traces.
  std::vector<int> local_ranks;
  std::vector<int> local_devices;
  std::vector<std::vector<double>> rank_start_us;
  std::vector<std::vector<double>> rank_duration_us;
  // --split: per group (Case::groups() order), the group's own per-operation time of every sample
  // (its slowest rank's); complete on every process.
  std::vector<std::vector<double>> group_samples_us;
  // Per rank of the case (index = rank number), that rank's own per-operation time of every
  // sample; with MeasureSettings::keep_rank_samples only, and then complete on every process.
  std::vector<std::vector<double>> rank_samples_us;
  // Alike, each sample's arrival skew: when the rank's worker launched the sample's first
  // operation (host steady_clock, from an origin every process takes just after agreeing to
  // start the timed batches) minus the earliest rank's launch of it. A late rank's own time is
  // the shortest (its peers wait for it inside the collective); its lateness is the largest.
  std::vector<std::vector<double>> rank_lateness_us;
  // Per rank of the case, which host it runs on (equal values: one host, one clock for launch
  // times); with keep_rank_samples.
  std::vector<int> rank_hosts;
};

class Runner {
 public:
  // `group`: the processes of a multi-process run (one GPU each), or null when this process
  // drives every GPU itself.
  // `hooks`: where test-only faults enter each case (measurement_hooks.hpp); none by default.
  explicit Runner(const MeasureSettings& settings, ProcessGroup* group = nullptr,
                  MeasurementHooksFactory hooks = {});
  ~Runner();
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  // Measures `c`. Out-of-memory and unsupported cases come back as rows (oom, skipped; also a
  // combination of --nccl-algo/--nccl-proto that NCCL refuses for the case) and the sweep goes on;
  // a CUDA/NCCL error or a timeout comes back as a row (error, timeout) and stops the runner
  // (stopped() turns true, communicators are aborted). Throws Interrupted on a signal. With several
  // processes, every process calls run() for every case in the same order; times are the maximum
  // over processes and wrong elements their sum, identical on every process.
  CaseOutcome run(const Case& c);
  bool stopped() const { return !stop_reason_.empty(); }
  const std::string& stop_reason() const { return stop_reason_; }
  // Aborts every communicator so no GPU waits on a peer that will never come.
  void abort_all() noexcept;

  class RankSet;  // the ranks of one GPU count: communicators, streams, buffers, events

 private:
  // The ranks of `c`'s GPU count with communicators made for `c`'s settings.
  RankSet& rank_set(const Case& c);
  CaseOutcome measure(RankSet& set, const Case& c);

  MeasureSettings settings_;
  ProcessGroup* group_;
  MeasurementHooksFactory hooks_;
  // By GPU count, communicator_config() and pass of --repeat: one at a time (the plan groups
  // cases by all three).
  using RankSetKey = std::tuple<int, std::string, int>;
  std::map<RankSetKey, std::unique_ptr<RankSet>> sets_;
  std::string stop_reason_;
};

}  // namespace collbench
