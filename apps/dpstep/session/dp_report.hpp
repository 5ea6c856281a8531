// From one measured training-step configuration to what is reported: derived figures (samples/s,
// exposed communication, bandwidths), the CSV row in THE schema, and the console table line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/metrics.hpp"
#include "dp_config.hpp"
#include "reports/report_row.hpp"
#include "telemetry/power_sampler.hpp"
#include "telemetry/run_metadata.hpp"

namespace collbench::dp {

// Per-GPU memory of the model state (the largest over the ranks: rank 0 for ps).
struct MemoryFootprint {
  std::uint64_t weights_bytes = 0;
  std::uint64_t gradients_bytes = 0;
  std::uint64_t optimizer_bytes = 0;  // momentum, plus float32 master weights for bfloat16
};

// A timed run of steps.
struct MeasuredSteps {
  // Per step, the slowest rank's time from its previous step's end to this one's (over every
  // process): the spread of step times, for percentiles.
  std::vector<double> slowest_rank_us;
  // The run's mean step: each rank's time from the first timed step's start to the last one's
  // end over the step count, the largest over the ranks, as nccl-tests times a run. The mean of
  // slowest_rank_us is higher whenever the ranks' jitter is out of phase, though the run did not
  // take longer.
  double mean_us = 0;
  // The timed steps' GPU state (measure()'s PassSettings::sample_power; NVML): the lowest mean SM
  // clock, the highest mean power and mean instantaneous power over the ranks, their clock-event
  // reasons or-ed. Empty without NVML.
  std::optional<PowerSummary> power;
};

// The run's figures: percentiles of the slowest rank's steps, mean of the run (mean_us).
TimeStats run_time_stats(const MeasuredSteps& steps);

struct StepMeasurement {
  TimeStats step;     // the training step
  TimeStats compute;  // the same step without collectives
  TimeStats comm;     // the step's collectives alone, back to back (zero for one rank)
  std::uint64_t gradient_bytes = 0;  // bytes handed to the gradient collectives per step
  double bus_bytes = 0;  // sum over the step's collectives of algorithm bytes * bus factor
  std::uint64_t parameters = 0;
  MemoryFootprint memory;
  std::string epilogues = "unfused";  // ModelReplica::epilogues()
  // Memset nodes the full step's graph ran as kernel nodes (StepConfig::graph_memsets).
  std::size_t memset_kernels = 0;
  // The GPUs' clock, power and clock-event reasons through the full step's timed steps (NVML).
  std::optional<PowerSummary> power;
  double loss = 0;  // after the last timed step (global mean)
  // The mean of the full step's per-step slowest-rank times (MeasuredSteps), reported beside the
  // run's mean.
  double step_slowest_rank_mean_us = 0;
};

struct StepOutcome {
  std::string status = report::kStatusOk;
  std::string reason;
  StepMeasurement measurement;
  std::optional<double> efficiency;  // vs the 1-GPU run of the same config, when it was measured
  std::uint64_t wrong_elements = 0;  // --check: weight elements that differ between ranks
};

// An outcome without measurements: skipped, oom, error or timeout, with the reason.
StepOutcome unmeasured(const char* status, const std::string& reason);

struct DerivedFigures {
  double samples_per_s = 0;
  double exposed_comm_us = 0;  // step - compute-only (may be slightly negative from noise)
  double algbw_gbps = 0;       // gradient bytes / comm-only time
  double busbw_gbps = 0;       // bus bytes / comm-only time
};

DerivedFigures derive_figures(const StepConfig& config, const StepMeasurement& m);
// Weak-scaling efficiency: 1-GPU step time / n-GPU step time (per-GPU throughput ratio).
double weak_scaling_efficiency(double baseline_step_us, double step_us);

struct RowSettings {
  int warmup = 0;
  int iters = 0;
  bool graphs = true;
};

std::string extra_field(const StepConfig& config, const StepOutcome& outcome);
report::ReportRow make_report_row(const StepConfig& config, const StepOutcome& outcome,
                                  const RunMetadata& metadata, const RowSettings& settings);

// The console table: a header, then one aligned line per configuration.
std::string table_header();
std::string table_line(const StepConfig& config, const StepOutcome& outcome);

std::string mib_text(std::uint64_t bytes);

}  // namespace collbench::dp
