// The per-case benchmark body.
#include "collbench/benchmark_frame.hpp"

#include "core/interrupt.hpp"
#include "reports/report_row.hpp"

namespace collbench {
namespace {

void tally(SweepTotals& totals, const CaseOutcome& outcome) {
  ++totals.cases;
  totals.wrong_elements += outcome.wrong_elements;
  if (outcome.status == report::kStatusOk) ++totals.ok;
  if (outcome.status == report::kStatusSkipped) ++totals.skipped;
  if (outcome.status == report::kStatusOom) ++totals.oom;
  if (outcome.status == report::kStatusError) ++totals.errors;
  if (outcome.status == report::kStatusTimeout) ++totals.timeouts;
}

void run_case(benchmark::State& state, const Case& c, SweepContext& context) {
  Runner& runner = *context.runner;
  if (runner.stopped() || context.totals.interrupt_signal) {
    state.SkipWithError("not run: the sweep stopped earlier");
    return;
  }
  CaseOutcome outcome;
  for (auto _ : state) {
    try {
      outcome = runner.run(c);
    } catch (const Interrupted& interrupted) {
      context.totals.interrupt_signal = interrupted.signal();
      state.SkipWithError(interrupted.what());
      return;
    }
    state.SetIterationTime(time_stats(outcome.iteration_us).mean_us * 1e-6);
  }
  if (!outcome.participated) {
    state.SkipWithError("this process holds none of the case's ranks");
    return;
  }
  CaseMetrics metrics = case_metrics(c, outcome.iteration_us, context.link_peak_gbps,
                                     context.confidence, outcome.slowest_rank_mean_us);
  add_group_metrics(metrics, c, outcome.group_samples_us);
  tally(context.totals, outcome);
  for (auto& sink : context.sinks) sink->on_case(c, outcome, metrics);

  state.counters["bytes"] = static_cast<double>(c.bytes());
  state.counters["p50_us"] = metrics.time.p50_us;
  state.counters["p99_us"] = metrics.time.p99_us;
  state.counters["algbw_gbps"] = metrics.algbw_gbps;
  state.counters["busbw_gbps"] = metrics.busbw_gbps;
  if (!metrics.groups.empty())
    state.counters["aggregate_busbw_gbps"] = metrics.aggregate_busbw_gbps;
  state.counters["wrong"] = static_cast<double>(outcome.wrong_elements);
  if (outcome.status != report::kStatusOk)
    state.SkipWithError((outcome.status + ": " + outcome.reason).c_str());
}

}  // namespace

void register_case_benchmarks(const Case* cases, std::size_t count, SweepContext& context) {
  for (std::size_t i = 0; i < count; ++i) {
    const Case& c = cases[i];
    benchmark::RegisterBenchmark(
        benchmark_name(c).c_str(),
        [c, &context](benchmark::State& state) { run_case(state, c, context); })
        ->UseManualTime()
        ->Iterations(1)  // one benchmark iteration = one measured case (warm-up + timed iterations)
        ->Unit(benchmark::kMicrosecond);
  }
}

}  // namespace collbench
