// Derived figures, CSV rows and console lines of the training-step benchmark.
#include "session/dp_report.hpp"

#include <fmt/format.h>

#include "dp_settings.hpp"
#include "reports/schema.hpp"

namespace collbench::dp {

StepOutcome unmeasured(const char* status, const std::string& reason) {
  StepOutcome outcome;
  outcome.status = status;
  outcome.reason = reason;
  return outcome;
}

DerivedFigures derive_figures(const StepConfig& config, const StepMeasurement& m) {
  DerivedFigures figures;
  if (m.step.mean_us > 0) {
    figures.samples_per_s =
        static_cast<double>(config.ranks) * config.model.batch / (m.step.mean_us * 1e-6);
  }
  figures.exposed_comm_us = m.step.mean_us - m.compute.mean_us;
  if (m.comm.mean_us > 0) {
    const double seconds = m.comm.mean_us * 1e-6;
    figures.algbw_gbps = static_cast<double>(m.gradient_bytes) / seconds / 1e9;
    figures.busbw_gbps = m.bus_bytes / seconds / 1e9;
  }
  return figures;
}

TimeStats run_time_stats(const MeasuredSteps& steps) {
  TimeStats stats = time_stats(steps.slowest_rank_us);
  // The mean's interval, from the spread of the step times, moves with the run's mean step, the
  // figure reported; the slowest rank's mean lies above it by the ranks' jitter out of phase.
  if (stats.has_interval()) {
    stats.mean_lo_us += steps.mean_us - stats.mean_us;
    stats.mean_hi_us += steps.mean_us - stats.mean_us;
  }
  stats.mean_us = steps.mean_us;
  return stats;
}

double weak_scaling_efficiency(double baseline_step_us, double step_us) {
  return step_us > 0 ? baseline_step_us / step_us : 0;
}

std::string mib_text(std::uint64_t bytes) {
  return fmt::format("{:.1f}", bytes / (1024.0 * 1024.0));
}

std::string extra_field(const StepConfig& config, const StepOutcome& outcome) {
  if (outcome.status != report::kStatusOk) return {};
  const StepMeasurement& m = outcome.measurement;
  const DerivedFigures f = derive_figures(config, m);
  std::string extra = fmt::format("samples_per_s={:.1f}", f.samples_per_s);
  if (outcome.efficiency) extra += fmt::format(";efficiency={:.4f}", *outcome.efficiency);
  extra += fmt::format(
      ";compute_us={:.3f};exposed_comm_us={:.3f};weights_mib={};grads_mib={};optimizer_mib={}",
      m.compute.mean_us, f.exposed_comm_us, mib_text(m.memory.weights_bytes),
      mib_text(m.memory.gradients_bytes), mib_text(m.memory.optimizer_bytes));
  extra += fmt::format(";comm_us={:.3f};compute_p50_us={:.3f};epilogue={};loss={:.6g}",
                       m.comm.mean_us, m.compute.p50_us, m.epilogues, m.loss);
  extra += fmt::format(";step_slowest_rank_mean_us={:.3f}", m.step_slowest_rank_mean_us);
  if (m.memset_kernels > 0) extra += fmt::format(";memset_kernels={}", m.memset_kernels);
  if (m.power) {
    extra +=
        fmt::format(";sm_mhz={:.0f};power_w={:.0f};clock_events={:#x};power_samples={}",
                    m.power->sm_mhz, m.power->power_w, m.power->clock_events, m.power->samples);
    if (m.power->instant_power_w)
      extra += fmt::format(";instant_power_w={:.0f}", *m.power->instant_power_w);
  }
  return extra;
}

report::ReportRow make_report_row(const StepConfig& config, const StepOutcome& outcome,
                                  const RunMetadata& metadata, const RowSettings& settings) {
  report::ReportRow row = row_with_metadata(metadata);
  row.op = report::kDpStepOp;
  row.algo = config.algo;
  row.ranks = config.ranks;
  row.dtype = std::string(name_of(config.model.dtype));
  row.redop = "avg";
  row.root = -1;
  row.in_place = true;  // gradients are reduced where backward wrote them
  row.bytes = outcome.measurement.gradient_bytes;
  row.count = outcome.measurement.parameters;
  row.warmup = settings.warmup;
  row.iters = settings.iters;
  row.agg_iters = 1;
  row.graph = settings.graphs ? settings.iters : 0;
  row.config = config_string(config);
  const StepMeasurement& m = outcome.measurement;
  // The spread and the interval are of the slowest rank's step times; the mean is the run's.
  row.time = m.step;
  const DerivedFigures f = derive_figures(config, m);
  row.algbw_gbps = f.algbw_gbps;
  row.busbw_gbps = f.busbw_gbps;
  row.wrong_elements = outcome.wrong_elements;
  row.status = outcome.status;
  row.reason = outcome.reason;
  row.extra = extra_field(config, outcome);
  return row;
}

namespace {
constexpr const char* kLineFormat =
    "{:>5} {:<8} {:>6} {:<14} {:>9} {:>9} {:>9} {:>11} {:>6} {:>10} {:>10} {:>8}";
}

std::string table_header() {
  return fmt::format(kLineFormat, "ranks", "mode", "bucket", "algo", "step_ms", "p50_ms", "p99_ms",
                     "samples/s", "eff", "compute_ms", "exposed_ms", "busbw") +
         "\n" +
         fmt::format(kLineFormat, "", "", "MiB", "", "mean", "", "", "", "", "", "comm", "GB/s");
}

std::string table_line(const StepConfig& config, const StepOutcome& outcome) {
  const std::string bucket = uses_buckets(config.scheme) ? format_mib(config.bucket_mib) : "all";
  if (outcome.status != report::kStatusOk) {
    return fmt::format("{:>5} {:<8} {:>6} {:<14} {}: {}", config.ranks, name_of(config.scheme),
                       bucket, config.algo, outcome.status, outcome.reason);
  }
  const StepMeasurement& m = outcome.measurement;
  const DerivedFigures f = derive_figures(config, m);
  std::string line = fmt::format(
      kLineFormat, config.ranks, name_of(config.scheme), bucket, config.algo,
      fmt::format("{:.3f}", m.step.mean_us / 1e3), fmt::format("{:.3f}", m.step.p50_us / 1e3),
      fmt::format("{:.3f}", m.step.p99_us / 1e3), fmt::format("{:.0f}", f.samples_per_s),
      outcome.efficiency ? fmt::format("{:.1f}%", *outcome.efficiency * 100) : "-",
      fmt::format("{:.3f}", m.compute.mean_us / 1e3),
      fmt::format("{:.3f}", f.exposed_comm_us / 1e3),
      config.ranks > 1 ? fmt::format("{:.1f}", f.busbw_gbps) : "-");
  if (outcome.wrong_elements > 0)
    line += fmt::format("  CHECK FAILED: {} weights differ", outcome.wrong_elements);
  return line;
}

}  // namespace collbench::dp
