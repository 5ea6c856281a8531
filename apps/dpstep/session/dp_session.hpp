// One collbench_dpstep invocation: measures each configuration when Google Benchmark calls it,
// keeps the 1-GPU baselines for weak-scaling efficiency, the communicators of each GPU count,
// and hands every outcome to the sinks (console table, CSV, benchmark counters).
//
// With one process per GPU every process runs the same configurations in the same order: each
// takes part in making a configuration's communicator (a split of the world), the ones outside it
// sit it out, and afterwards all agree on its outcome. Only world rank 0 prints and writes the CSV.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dp_options.hpp"
#include "launch/process_group.hpp"
#include "output/row_sinks.hpp"
#include "runtime/nccl_communicator.hpp"
#include "session/dp_report.hpp"
#include "session/outcome_agreement.hpp"
#include "session/process_plan.hpp"
#include "telemetry/run_metadata.hpp"

namespace collbench::dp {

class DpSession {
 public:
  // `group`: the processes of a one-process-per-GPU launch, or null when this process drives
  // every GPU. `table`: where the console table goes, or null on a process that does not report
  // (every rank but 0); the CSV file is opened only where the table goes (throws
  // std::runtime_error naming it when it cannot). With a group, collective.
  DpSession(const DpOptions& options, RunMetadata metadata, ProcessGroup* group, std::FILE* table);

  // The body of one registered benchmark.
  void run(const StepConfig& config, benchmark::State& state);
  // `processes`: a line describing the processes of a multi-process launch ("" for one process).
  void print_header(const std::vector<StepConfig>& plan, const std::string& processes) const;
  // Non-zero when a configuration failed (error, timeout, failed check); the same on every process.
  int exit_code() const { return failures_ > 0 ? 1 : 0; }
  // Configurations measured (status ok); the same on every process.
  int measured() const { return measured_; }
  void abort_all() noexcept;

 private:
  // Measures (and checks) `config` where this process takes part; failures become outcomes.
  StepOutcome attempt(const StepConfig& config, bool& took_part);
  StepOutcome measure(const StepConfig& config, std::vector<NcclCommunicator>& communicators);
  std::string run_checks(const StepConfig& config, std::vector<NcclCommunicator>& communicators);
  // The communicators of `ranks` (> 1) GPUs, made on first use: by this process, or, with one
  // process per GPU, split from the world by every process (collective).
  std::vector<NcclCommunicator>& communicators(int ranks);
  void drop_communicators(int ranks) noexcept;
  void report(const StepConfig& config, const StepOutcome& outcome);
  // The GPU of a 1-rank configuration: GPU 0, or this process's GPU with one process per GPU.
  int single_rank_device() const;

  DpOptions options_;
  RunMetadata metadata_;
  ProcessGroup* group_;
  ProcessLayout processes_;
  std::FILE* table_;
  std::vector<std::unique_ptr<RowSink>> row_sinks_;  // where the table goes only
  std::optional<OutcomeAgreement> agreement_;        // one process per GPU only
  // Per GPU count: this process's communicators (none where it holds no rank of that count).
  std::map<int, std::vector<NcclCommunicator>> communicators_;
  std::vector<NcclCommunicator> no_communicators_;  // one rank
  std::map<std::string, double> baseline_step_us_;  // config string -> 1-GPU mean step time
  int failures_ = 0;
  int measured_ = 0;
};

}  // namespace collbench::dp
