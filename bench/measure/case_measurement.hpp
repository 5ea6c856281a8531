// The measurement of one case, as its phases: prepare (buffers, registration, inputs), warm up,
// capture (graph mode), timed batches until the stop rule ends them (each batch a start-gated
// round), gather every rank's samples, check, release and combine across processes. Test-only
// faults enter through MeasurementHooks, whose defaults do nothing.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "measure/case_progress.hpp"
#include "measure/measurement_hooks.hpp"
#include "measure/rank_set.hpp"
#include "measure/runner.hpp"
#include "measure/sample_tables.hpp"
#include "runtime/cuda_resources.hpp"

namespace collbench {

class CaseMeasurement {
 public:
  CaseMeasurement(Runner::RankSet& set, const Case& c, const MeasureSettings& settings,
                  ProcessGroup* group, std::unique_ptr<MeasurementHooks> hooks);
  // Measures the case; a skip comes back as a row, failures as exceptions (Runner::run turns
  // them into rows).
  CaseOutcome run();

 private:
  using Clock = std::chrono::steady_clock;
  std::string skip_reason();
  void prepare();
  std::string nccl_refusal();
  void warm_up();
  void capture_graphs();
  void run_timed_batches();
  void time_round(std::size_t round, std::size_t samples);
  void time_rank_samples(int local, std::size_t round, std::size_t samples, std::uint64_t ticket);
  std::vector<double> collect_round(std::size_t samples);
  void gather_rank_tables();
  void check_outputs();
  void launch_checked_iteration(int check, const std::vector<const std::uint64_t*>& segments);
  void release_and_combine();

  // Enqueues one iteration (aggregate operations) on rank `local`, from its own thread.
  void launch_rank(int local, int aggregate);
  // Waits until every rank's stream is idle (polled: a hang ends at the deadline), then asks the
  // algorithm whether a kernel gave up on a peer.
  void wait();
  std::string timeout_reason(const std::vector<bool>& idle) const;
  // Whether `ok` holds on every process (an all-reduce of a flag; trivially true alone).
  bool all_processes_agree(bool ok);
  void fill_inputs(const kernels::PatternParams& params);
  kernels::PatternParams pattern(std::uint64_t seed) const;
  // Samples per timed batch: the stop rule's ask, and no more than a gated round may hold.
  std::size_t round_samples(std::size_t asked) const;
  std::size_t stream_operations_per_sample() const;

  Runner::RankSet& set_;
  const Case& case_;
  const MeasureSettings& settings_;
  ProcessGroup* group_;
  const CaseShape shape_;
  const WaitDeadline deadline_;
  std::unique_ptr<MeasurementHooks> hooks_;
  LaunchCounts launched_;
  CollectiveAlgorithm* algorithm_ = nullptr;
  const std::vector<RankBuffers>* buffers_ = nullptr;
  // How samples are framed: iterations launched normally share their boundary events, loops and
  // graph replays have a pair each.
  bool graph_ = false;
  bool whole_loop_ = false;
  bool shared_boundaries_ = true;
  std::size_t base_batch_ = 0;
  // Whether timed rounds are start-gated (run_timed_batches decides).
  bool gated_ = false;
  std::vector<GraphExec> graphs_;
  RankTable launch_us_;  // per local rank, host time of each sample's launch (steady clock, us)
  CaseOutcome outcome_;
};

}  // namespace collbench
