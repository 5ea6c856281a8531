// One collbench_dpstep invocation: measures each configuration when Google Benchmark calls it,
// keeps the 1-GPU baselines for weak-scaling efficiency, the communicators of each GPU count,
// and hands every outcome to the sinks (console table, CSV, benchmark counters).
#pragma once

#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "csv_writer.hpp"
#include "dp_options.hpp"
#include "dp_report.hpp"
#include "nccl_communicator.hpp"
#include "run_metadata.hpp"

namespace collbench::dp {

class DpSession {
 public:
  // Opens the CSV file (throws std::runtime_error naming it when it cannot).
  DpSession(const DpOptions& options, RunMetadata metadata, std::FILE* table);

  // The body of one registered benchmark.
  void run(const StepConfig& config, benchmark::State& state);
  void print_header(const std::vector<StepConfig>& plan) const;
  // Non-zero when a configuration failed (error, timeout, failed check).
  int exit_code() const { return failures_ > 0 ? 1 : 0; }
  void abort_all() noexcept;

 private:
  StepOutcome measure(const StepConfig& config);
  std::string run_checks(const StepConfig& config);
  std::vector<NcclCommunicator>& communicators(int ranks);
  void drop_communicators(int ranks) noexcept;
  void report(const StepConfig& config, const StepOutcome& outcome);

  DpOptions options_;
  RunMetadata metadata_;
  std::FILE* table_;
  std::optional<report::CsvWriter> csv_;
  std::map<int, std::vector<NcclCommunicator>> communicators_;
  std::vector<NcclCommunicator> no_communicators_;  // one rank
  std::map<std::string, double> baseline_step_us_;  // config string -> 1-GPU mean step time
  int failures_ = 0;
};

}  // namespace collbench::dp
