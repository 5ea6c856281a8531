// The subcommands through the frame, and the GPU replay's start, run and finish.
#include "cli/replay_program.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <iostream>

#include "cli/replay_commands.hpp"
#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "launch/process_launch.hpp"
#include "output/row_sinks.hpp"
#include "report/op_csv.hpp"
#include "report/replay_json.hpp"
#include "report/replay_rows.hpp"
#include "report/replay_text.hpp"
#include "telemetry/run_metadata.hpp"

namespace collbench::replay {

void check_replay_ranks(const WorkloadOps& workload, int processes, int visible_gpus) {
  const int ranks = workload.world_size();
  const std::string rescale =
      fmt::format("rescale it first (collbench_replay rescale WORKLOAD --ranks {} -o FILE)",
                  processes > 0 ? processes : visible_gpus);
  if (processes > 0 && processes != ranks) {
    throw UsageError(
        fmt::format("{}: the workload has {} ranks, the launch {} processes: launch {} "
                    "processes, or {}",
                    workload.path, ranks, processes, ranks, rescale));
  }
  if (processes == 0 && visible_gpus < ranks) {
    throw UsageError(fmt::format("{}: the workload has {} ranks, {} GPUs are visible: {}",
                                 workload.path, ranks, visible_gpus, rescale));
  }
}

std::string ReplayProgram::help() const {
  return replay_help();
}

void ReplayProgram::parse(const std::vector<std::string>& args) {
  options_ = parse_replay_options(args);
}

std::optional<int> ReplayProgram::run_without_plan() {
  if (options_.command != ReplayCommand::run) {
    run_replay_command(options_, std::cout);
    return kExitOk;
  }
  // Before the frame looks for GPUs or joins processes: a refused workload, or an NCCL variable
  // the rows cannot name, is bad input anywhere.
  workload_ = checked_replay_workload(options_);
  info_.workload_name = workload_name(options_.inputs);
  combinations_ = replay_combinations(options_.axes, options_.all_reduce_algos, options_.graphs);
  return std::nullopt;
}

void ReplayProgram::start(RunContext& run) {
  check_replay_ranks(workload_, run.group ? run.group->size() : 0, run.gpus());
  reporting_ = run.reporting;
  info_.origin = run.metadata;
  info_.warmup = options_.replay.warmup;
  info_.iters = options_.replay.iters;
  info_.gaps = options_.replay.gaps;
  info_.check = options_.replay.check;
  if (reporting_) {
    print_replay_header(workload_, info_,
                        run.group ? describe_processes(*run.group, run.environment) : "",
                        std::cout);
    print_combinations_line(combinations_, std::cout);
    std::cout.flush();
  }
  throw_if_interrupted();
  const int ranks = workload_.world_size();
  set_ = run.group ? std::make_unique<Runner::RankSet>(*run.group, ranks)
                   : std::make_unique<Runner::RankSet>(ranks);
  settings_ = options_.replay;
  settings_.timeout_s = options_.common.timeout_s;
  trace_ = KernelTrace::shared(&no_trace_reason_);
  if (!reporting_) return;
  if (!options_.common.csv_path.empty()) row_sinks_ = open_row_sinks(options_.common.csv_path);
  if (!options_.ops_csv_path.empty()) ops_csv_.emplace(options_.ops_csv_path);
}

void ReplayProgram::run_plan(RunContext& run) {
  for (const ReplayCombination& combination : combinations_) {
    throw_if_interrupted();
    const std::size_t done = runs_.size();
    if (!replay_combination(combination, run)) return;
    if (!reporting_ || runs_.size() == done) continue;  // skipped: nothing to write
    write_report_rows();
    write_ops_csv();
  }
}

bool ReplayProgram::replay_combination(const ReplayCombination& combination, RunContext& run) {
  ReplaySettings settings = settings_;
  settings.combination = combination;
  try {
    // The previous combination's communicators and NCCL environment go before this one's come.
    session_.reset();
    session_ =
        std::make_unique<ReplaySession>(*set_, workload_, settings, run.group != nullptr, trace_);
    session_->prepare();
    info_.gated = session_->gated();
    info_.ungated_reason = session_->ungated_reason();
    info_.no_kernel_trace = session_->traces_kernels() ? ""
                            : trace_                   ? "another process of the run has none"
                                                       : no_trace_reason_;
    session_->warm_up();
    session_->time();
    session_->check();
    runs_.push_back({combination, replay_figures(workload_, session_->gather_results())});
    // Said once the combination has run (a skipped one says why instead).
    if (const std::string kept = session_->kept_note(); !kept.empty()) {
      notes_.push_back(fmt::format("{}: {}", combination.name(), kept));
      if (reporting_) fmt::print(stderr, "collbench_replay: {}\n", notes_.back());
    }
  } catch (const UnsupportedCombination& refused) {
    session_.reset();
    // Alone, the combination asked for cannot run: bad input, as a refused workload.
    if (combinations_.size() == 1) throw UsageError(refused.what());
    skipped_.push_back(fmt::format("{}: skipped: {}", combination.name(), refused.what()));
    if (reporting_) fmt::print(stderr, "collbench_replay: {}\n", skipped_.back());
  } catch (const CaseTimeout& timeout) {
    timeout_ = fmt::format("{}{}", combinations_.size() > 1 ? combination.name() + ": " : "",
                           timeout.what());  // the session has aborted its communicators
    if (run.group) run.group->abort();
    return false;
  } catch (const GpuError& error) {
    if (combinations_.size() == 1) throw;
    // Which combination NCCL refused (an algorithm or protocol it lacks here, say).
    throw GpuError(fmt::format("{}: {}", combination.name(), error.what()), error.out_of_memory(),
                   error.nccl_status(), error.nccl_message());
  }
  return true;
}

ReplayRunInfo ReplayProgram::info_for(const ReplayCombination& combination) const {
  ReplayRunInfo info = info_;
  info.nccl_config = combination.config();
  return info;
}

int ReplayProgram::finish(RunContext&) {
  if (!timeout_.empty()) {
    fmt::print(stderr, "collbench_replay: timeout: {}\n", timeout_);
    return kExitTimeout;
  }
  if (runs_.size() + skipped_.size() != combinations_.size())
    return kExitFailed;  // a signal stopped it first
  if (runs_.empty()) {
    fmt::print(stderr, "collbench_replay: error: no combination can run here\n");
    return kExitUsage;
  }
  if (reporting_) {
    for (std::size_t i = 0; i < runs_.size(); ++i) {
      if (runs_.size() > 1)
        print_combination_header(i, runs_.size(), runs_[i].combination, std::cout);
      print_replay_figures(runs_[i].figures, info_, std::cout);
    }
    if (runs_.size() > 1)
      print_combination_summary(summarize_combinations(runs_), runs_.front().combination.name(),
                                std::cout);
    for (const std::string& line : notes_) std::cout << "# " << line << "\n";
    for (const std::string& line : skipped_) std::cout << "# " << line << "\n";
    std::cout.flush();
    if (!options_.json_path.empty()) write_json();
  }
  return report_mismatches();
}

void ReplayProgram::abort() noexcept {
  if (session_) session_->abort_all();
}

void ReplayProgram::write_report_rows() {
  const CombinationRun& latest = runs_.back();
  for (const report::ReportRow& row : replay_report_rows(
           workload_, latest.figures, info_for(latest.combination), utc_timestamp())) {
    for (const std::unique_ptr<RowSink>& sink : row_sinks_) sink->write(row);
  }
}

void ReplayProgram::write_ops_csv() {
  if (!ops_csv_) return;
  const CombinationRun& latest = runs_.back();
  const std::string config = latest.combination.config();
  for (std::size_t rank = 0; rank < workload_.by_rank.size(); ++rank) {
    for (std::size_t ordinal = 0; ordinal < workload_.by_rank[rank].size(); ++ordinal) {
      ops_csv_->write(
          {workload_, workload_.by_rank[rank][ordinal], latest.figures.ops[rank][ordinal], config});
    }
  }
}

void ReplayProgram::write_json() const {
  std::ofstream file(options_.json_path);
  file << replay_json(workload_, runs_, info_).dump(1) << "\n";
  if (!file) throw std::runtime_error(fmt::format("cannot write --json '{}'", options_.json_path));
}

int ReplayProgram::report_mismatches() const {
  std::vector<std::string> wrong;
  for (const CombinationRun& run : runs_) {
    for (const std::string& line : mismatch_lines(workload_, run.figures))
      wrong.push_back(runs_.size() > 1 ? run.combination.name() + ": " + line : line);
  }
  // Every process knows them all (gathered); one prints.
  if (reporting_) {
    for (const std::string& line : wrong) fmt::print(stderr, "collbench_replay: error: {}\n", line);
  }
  return wrong.empty() ? kExitOk : kExitFailed;
}

}  // namespace collbench::replay
