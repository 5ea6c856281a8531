// Measurement of one configuration (three passes: step, compute only, communication only), its
// checks, the agreement between processes, and the sinks.
#include "session/dp_session.hpp"

#include <fmt/format.h>

#include "checks/correctness_checks.hpp"
#include "core/errors.hpp"
#include "core/interrupt.hpp"
#include "measure/runner.hpp"
#include "runtime/cuda_resources.hpp"
#include "session/communicators.hpp"
#include "session/dp_trainer.hpp"

namespace collbench::dp {
namespace {

// A process outside a configuration waits for the others to finish all of it (setup, three
// passes, checks) before they agree on its outcome, so longer than any one of their waits, each
// bounded by --timeout.
constexpr double kAgreementWaitInTimeouts = 10;

bool failed(const StepOutcome& outcome) {
  return outcome.status != report::kStatusOk && outcome.status != report::kStatusSkipped;
}

}  // namespace

DpSession::DpSession(const DpOptions& options, RunMetadata metadata, ProcessGroup* group,
                     std::FILE* table)
    : options_(options), metadata_(std::move(metadata)), group_(group), table_(table) {
  if (group_) {
    processes_ = {false, group_->rank(), group_->size(), 0};
    agreement_.emplace(*group_);
  } else {
    processes_ = {true, 0, 1, visible_gpu_count()};
  }
  if (table_) row_sinks_ = open_row_sinks(options.common.csv_path);
}

void DpSession::print_header(const std::vector<StepConfig>& plan,
                             const std::string& processes) const {
  if (!table_) return;
  const ModelConfig& m = options_.base.model;
  const std::size_t element_bytes = size_of(m.dtype);
  const ParameterLayout layout(m.layers, m.width, element_bytes, 0, 1);
  std::fprintf(
      table_,
      "# collbench_dpstep %s: MLP %d x %d, batch %d per GPU, %s, %.1f M parameters (%s MiB of "
      "gradients), SGD momentum %g, lr %g%s\n",
      metadata_.collbench_version.c_str(), m.layers, m.width, m.batch,
      std::string(name_of(m.dtype)).c_str(), layout.parameter_count() / 1e6,
      mib_text(layout.parameter_count() * element_bytes).c_str(), m.momentum, m.learning_rate,
      m.dtype != DataType::bfloat16 ? ""
      : m.master_weights            ? ", float32 master weights and momentum"
                                    : ", bfloat16 weights and momentum");
  std::fprintf(
      table_,
      "# %s, %zu GPU(s) visible, driver %s, CUDA %s, NCCL %s; %zu configurations, %d+%d steps per "
      "pass, %s\n",
      metadata_.gpu_name.c_str(), static_cast<std::size_t>(visible_gpu_count()),
      metadata_.driver.c_str(), metadata_.cuda_runtime.c_str(), metadata_.nccl_version.c_str(),
      plan.size(), options_.session.warmup, options_.session.iters,
      options_.session.eager ? "eager launches" : "CUDA graphs");
  if (!processes.empty()) {
    std::fprintf(table_, "# %s; a step's time is the slowest process's\n", processes.c_str());
  }
  std::fprintf(table_, "%s\n", table_header().c_str());
  std::fflush(table_);
}

int DpSession::single_rank_device() const {
  return group_ ? group_->device() : 0;
}

std::vector<NcclCommunicator>& DpSession::communicators(int ranks) {
  auto found = communicators_.find(ranks);
  if (found == communicators_.end()) {
    // With one process per GPU every process splits, in or out: the map holds the same counts on
    // every process, so they all split again at the same configuration after a drop.
    std::vector<NcclCommunicator> made =
        group_ ? split_step_communicators(*group_, ranks, options_.base.nccl_max_ctas)
               : create_step_communicators(ranks, options_.base.nccl_max_ctas);
    found = communicators_.emplace(ranks, std::move(made)).first;
  }
  return found->second;
}

void DpSession::drop_communicators(int ranks) noexcept {
  auto found = communicators_.find(ranks);
  if (found == communicators_.end()) return;
  for (NcclCommunicator& comm : found->second) comm.abort();
  communicators_.erase(found);
}

void DpSession::abort_all() noexcept {
  for (auto& [ranks, comms] : communicators_) {
    for (NcclCommunicator& comm : comms) comm.abort();
  }
  communicators_.clear();
  if (agreement_) agreement_->abort();
  if (group_) group_->abort();
}

StepOutcome DpSession::measure(const StepConfig& config,
                               std::vector<NcclCommunicator>& communicators) {
  StepOutcome outcome;
  StepMeasurement& m = outcome.measurement;
  DataParallelTrainer trainer(config, communicators, single_rank_device(),
                              options_.common.timeout_s);
  // One step launched from the host first: NCCL connects and cuBLASLt loads its kernels outside
  // graph capture and timing.
  trainer.run_eager(1);
  trainer.synchronize(options_.common.timeout_s);
  const bool graphs = !options_.session.eager;
  const PassSettings full_pass{options_.session.warmup_ms, true};
  const PassSettings other_pass{options_.session.warmup_ms, false};
  const MeasuredSteps steps =
      trainer.measure(StepVariant::full, options_.session.warmup, options_.session.iters, graphs,
                      options_.common.timeout_s, full_pass);
  m.power = steps.power;
  m.step = run_time_stats(steps);
  m.step_slowest_rank_mean_us = time_stats(steps.slowest_rank_us).mean_us;
  m.loss = trainer.loss();
  // Checked here, before the compute-only pass (ps and sharded replicas drift apart without
  // their weight collectives).
  if (options_.session.check) outcome.wrong_elements = trainer.differing_weight_elements();
  m.compute = run_time_stats(trainer.measure(StepVariant::compute_only, options_.session.warmup,
                                             options_.session.iters, graphs,
                                             options_.common.timeout_s, other_pass));
  if (config.ranks > 1) {
    m.comm = run_time_stats(trainer.measure(StepVariant::comm_only, options_.session.warmup,
                                            options_.session.iters, graphs,
                                            options_.common.timeout_s, other_pass));
  }
  m.gradient_bytes = trainer.gradient_bytes();
  m.bus_bytes = trainer.bus_bytes();
  m.parameters = trainer.layout().parameter_count();
  m.memory = trainer.memory();
  m.epilogues = std::string(trainer.epilogues());
  m.memset_kernels = trainer.full_step_memset_kernels();
  if (m.gradient_bytes == 0)
    m.gradient_bytes = trainer.layout().total_bytes();  // one rank: nothing sent
  return outcome;
}

std::string DpSession::run_checks(const StepConfig& config,
                                  std::vector<NcclCommunicator>& communicators) {
  const StepConfig small = small_check_config(config);
  const SmallModelReport report = run_small_model_check(
      small, communicators, 10, options_.common.timeout_s, single_rank_device());
  if (table_) {
    std::fprintf(table_, "      check %s %s %d ranks: %s\n",
                 std::string(name_of(config.scheme)).c_str(), config.algo.c_str(), config.ranks,
                 report.summary().c_str());
  }
  return report.ok() ? std::string() : "check failed: " + report.summary();
}

StepOutcome DpSession::attempt(const StepConfig& config, bool& took_part) {
  took_part = false;
  StepOutcome outcome;
  try {
    const ConfigPlacement placement = place_configuration(config.ranks, processes_);
    if (!placement.unsupported.empty()) throw UnsupportedConfig(placement.unsupported);
    // Every process takes part in making the communicator, even one that then sits out.
    std::vector<NcclCommunicator>& comms =
        placement.makes_communicator ? communicators(config.ranks) : no_communicators_;
    if (!placement.takes_part) return outcome;
    took_part = true;
    outcome = measure(config, comms);
    if (options_.session.check) {
      const std::string failure = run_checks(config, comms);
      if (outcome.wrong_elements > 0) {
        outcome.status = report::kStatusError;
        outcome.reason =
            fmt::format("{} weight elements differ between ranks", outcome.wrong_elements);
      } else if (!failure.empty()) {
        outcome.status = report::kStatusError;
        outcome.reason = failure;
      }
    }
  } catch (const UnsupportedConfig& error) {
    outcome = unmeasured(report::kStatusSkipped, error.what());
  } catch (const UsageError& error) {
    outcome = unmeasured(report::kStatusSkipped, error.what());
  } catch (const CaseTimeout& error) {
    outcome = unmeasured(report::kStatusTimeout, error.what());
  } catch (const GpuError& error) {
    // The trainer aborted the communicators if it failed after its construction.
    outcome =
        unmeasured(error.out_of_memory() ? report::kStatusOom : report::kStatusError, error.what());
  } catch (const Interrupted&) {
    abort_all();
    throw;
  } catch (const std::exception& error) {
    outcome = unmeasured(report::kStatusError, error.what());
  }
  return outcome;
}

void DpSession::run(const StepConfig& config, benchmark::State& state) {
  StepOutcome outcome;
  for (auto _ : state) {
    bool took_part = false;
    outcome = attempt(config, took_part);
    if (agreement_) {
      outcome = agreement_->agree(outcome, kAgreementWaitInTimeouts * options_.common.timeout_s);
    }
    // After a failure the communicators may be aborted or mid-collective: new ones next time.
    if (failed(outcome)) drop_communicators(config.ranks);
    if (took_part && config.ranks == 1 && outcome.status == report::kStatusOk) {
      baseline_step_us_[config_string(config)] = outcome.measurement.step.mean_us;
    }
    const auto baseline = baseline_step_us_.find(config_string(config));
    if (outcome.status == report::kStatusOk && baseline != baseline_step_us_.end()) {
      outcome.efficiency =
          weak_scaling_efficiency(baseline->second, outcome.measurement.step.mean_us);
    }
    if (outcome.status == report::kStatusOk) {
      state.SetIterationTime(outcome.measurement.step.mean_us * 1e-6);
    } else {
      state.SkipWithError(outcome.reason.c_str());
    }
  }
  if (outcome.status == report::kStatusOk) {
    const DerivedFigures f = derive_figures(config, outcome.measurement);
    state.counters["samples_per_s"] = f.samples_per_s;
    if (outcome.efficiency) state.counters["efficiency"] = *outcome.efficiency;
    state.counters["step_p50_ms"] = outcome.measurement.step.p50_us / 1e3;
    state.counters["step_p99_ms"] = outcome.measurement.step.p99_us / 1e3;
    state.counters["compute_ms"] = outcome.measurement.compute.mean_us / 1e3;
    state.counters["exposed_comm_ms"] = f.exposed_comm_us / 1e3;
    state.counters["busbw_gbps"] = f.busbw_gbps;
  }
  report(config, outcome);
}

void DpSession::report(const StepConfig& config, const StepOutcome& outcome) {
  if (failed(outcome)) ++failures_;
  if (outcome.status == report::kStatusOk) ++measured_;
  if (!table_) return;
  std::fprintf(table_, "%s\n", table_line(config, outcome).c_str());
  std::fflush(table_);
  if (row_sinks_.empty()) return;
  const report::ReportRow row =
      make_report_row(config, outcome, metadata_,
                      {options_.session.warmup, options_.session.iters, !options_.session.eager});
  for (const auto& sink : row_sinks_) sink->write(row);
}

}  // namespace collbench::dp
