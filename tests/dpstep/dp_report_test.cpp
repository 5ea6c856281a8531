// Derived figures, the CSV row of a measured configuration, and the console line.
#include "session/dp_report.hpp"

#include <gtest/gtest.h>

namespace collbench::dp {
namespace {

StepConfig four_gpu_config() {
  StepConfig config;
  config.ranks = 4;
  return config;
}

StepOutcome measured() {
  StepOutcome outcome;
  StepMeasurement& m = outcome.measurement;
  m.step = {3000, 2900, 2990, 3300, 3400};
  m.compute = {2700, 2650, 2700, 2800, 2900};
  m.comm = {1500, 1400, 1500, 1600, 1700};
  m.gradient_bytes = 268435456;
  m.bus_bytes = 268435456 * 1.5;
  m.parameters = 134250496;
  m.memory = {256ull << 20, 256ull << 20, 1024ull << 20};
  m.epilogues = "fused";
  m.step_slowest_rank_mean_us = 3012.5;
  outcome.efficiency = 0.9;
  return outcome;
}

TEST(DpReport, DerivedFiguresFollowTheirDefinitions) {
  const DerivedFigures f = derive_figures(four_gpu_config(), measured().measurement);
  EXPECT_DOUBLE_EQ(f.samples_per_s, 4.0 * 2048 / 3000e-6);
  EXPECT_DOUBLE_EQ(f.exposed_comm_us, 300);
  EXPECT_DOUBLE_EQ(f.algbw_gbps, 268435456 / 1500e-6 / 1e9);
  EXPECT_DOUBLE_EQ(f.busbw_gbps, f.algbw_gbps * 1.5);  // all-reduce bus factor 2(n-1)/n at n = 4
  EXPECT_DOUBLE_EQ(weak_scaling_efficiency(2700, 3000), 0.9);
  EXPECT_DOUBLE_EQ(weak_scaling_efficiency(2700, 0), 0);
}

// The run's mean is the run's, not the mean of the per-step slowest ranks; the percentiles are
// the per-step slowest ranks'.
TEST(DpReport, RunStatsTakeTheRunsMeanAndTheStepsPercentiles) {
  MeasuredSteps steps;
  steps.slowest_rank_us = {3000, 3100, 2900, 3200, 3050};
  steps.mean_us = 3010;
  const TimeStats stats = run_time_stats(steps);
  EXPECT_DOUBLE_EQ(stats.mean_us, 3010);
  EXPECT_DOUBLE_EQ(stats.min_us, 2900);
  EXPECT_DOUBLE_EQ(stats.p50_us, 3050);
  EXPECT_DOUBLE_EQ(stats.max_us, 3200);
  EXPECT_DOUBLE_EQ(time_stats(steps.slowest_rank_us).mean_us, 3050);
  // Too few steps for an interval at 95%; with more, the mean's moves with the run's mean.
  EXPECT_EQ(stats.mean_hi_us, 0);
  steps.slowest_rank_us.insert(steps.slowest_rank_us.end(), {3000, 3100, 2900, 3200, 3050});
  const TimeStats ten = run_time_stats(steps);
  const TimeStats slowest = time_stats(steps.slowest_rank_us);
  ASSERT_TRUE(ten.has_interval());
  EXPECT_DOUBLE_EQ(ten.mean_lo_us, slowest.mean_lo_us - 40);
  EXPECT_DOUBLE_EQ(ten.mean_hi_us, slowest.mean_hi_us - 40);
}

TEST(DpReport, RowFollowsTheSchema) {
  RunMetadata metadata;
  metadata.host = "node1";
  metadata.gpu_name = "NVIDIA H200";
  metadata.nccl_version = "2.28.3";
  const report::ReportRow row =
      make_report_row(four_gpu_config(), measured(), metadata, {10, 50, true});
  EXPECT_EQ(row.op, "dp_step");
  EXPECT_EQ(row.algo, "nccl");
  EXPECT_EQ(row.ranks, 4);
  EXPECT_EQ(row.dtype, "bfloat16");
  EXPECT_EQ(row.redop, "avg");
  EXPECT_EQ(row.root, -1);
  EXPECT_EQ(row.bytes, 268435456u);
  EXPECT_EQ(row.count, 134250496u);
  EXPECT_EQ(row.warmup, 10);
  EXPECT_EQ(row.iters, 50);
  EXPECT_EQ(row.graph, 50);
  EXPECT_EQ(row.origin.launch_mode, "single_process");
  EXPECT_EQ(row.origin.host, "node1");
  EXPECT_EQ(row.config,
            "layers=8;width=4096;batch=2048;dtype=bfloat16;sync=overlap;bucket_mib=25;algo=nccl;"
            "optimizer=bf16");
  EXPECT_DOUBLE_EQ(row.time.mean_us, 3000);
  EXPECT_DOUBLE_EQ(row.time.p50_us, 2990);
  EXPECT_DOUBLE_EQ(row.time.p99_us, 3300);
  EXPECT_EQ(row.status, "ok");
  EXPECT_FALSE(row.timestamp.empty());
  EXPECT_EQ(
      row.extra.rfind(
          "samples_per_s=2730666.7;efficiency=0.9000;compute_us=2700.000;exposed_comm_us=300.000;"
          "weights_mib=256.0;grads_mib=256.0;optimizer_mib=1024.0;",
          0),
      0u)
      << row.extra;
  EXPECT_NE(row.extra.find("epilogue=fused"), std::string::npos);
  EXPECT_NE(row.extra.find(";step_slowest_rank_mean_us=3012.500"), std::string::npos) << row.extra;
  EXPECT_EQ(row.extra.find("memset_kernels"), std::string::npos) << row.extra;  // none replaced
  StepOutcome replaced = measured();
  replaced.measurement.memset_kernels = 9;
  EXPECT_NE(extra_field(four_gpu_config(), replaced).find(";memset_kernels=9"), std::string::npos);
  EXPECT_EQ(row.extra.find("sm_mhz"), std::string::npos) << row.extra;  // no NVML samples
  StepOutcome sampled = measured();
  sampled.measurement.power = PowerSummary{1694.6, 687.2, 0x4, 15, std::nullopt};
  EXPECT_NE(extra_field(four_gpu_config(), sampled)
                .find(";sm_mhz=1695;power_w=687;clock_events=0x4;power_samples=15"),
            std::string::npos);
  EXPECT_EQ(extra_field(four_gpu_config(), sampled).find("instant_power_w"), std::string::npos);
  sampled.measurement.power->instant_power_w = 702.4;  // the driver gives it
  EXPECT_NE(extra_field(four_gpu_config(), sampled).find(";power_samples=15;instant_power_w=702"),
            std::string::npos);
  EXPECT_EQ(make_report_row(four_gpu_config(), measured(), metadata, {10, 50, false}).graph, 0);
}

TEST(DpReport, EfficiencyIsLeftOutWhenNoBaselineWasMeasured) {
  StepOutcome outcome = measured();
  outcome.efficiency.reset();
  EXPECT_EQ(extra_field(four_gpu_config(), outcome).find("efficiency"), std::string::npos);
  EXPECT_NE(table_line(four_gpu_config(), outcome).find(" - "), std::string::npos);
}

TEST(DpReport, SkippedRowsCarryTheReasonAndNoFigures) {
  const StepOutcome outcome = unmeasured(report::kStatusSkipped, "needs 4 GPUs, 2 visible");
  const report::ReportRow row =
      make_report_row(four_gpu_config(), outcome, RunMetadata{}, {1, 1, true});
  EXPECT_EQ(row.status, "skipped");
  EXPECT_EQ(row.reason, "needs 4 GPUs, 2 visible");
  EXPECT_TRUE(row.extra.empty());
  EXPECT_NE(table_line(four_gpu_config(), outcome).find("skipped: needs 4 GPUs"),
            std::string::npos);
}

TEST(DpReport, TableLinesAlignWithTheHeader) {
  const std::string header = table_header();
  const std::string first = header.substr(0, header.find('\n'));
  const std::string line = table_line(four_gpu_config(), measured());
  EXPECT_EQ(line.size(), first.size()) << first << "\n" << line;
  EXPECT_NE(line.find("90.0%"), std::string::npos);
  EXPECT_NE(line.find("3.000"), std::string::npos);
}

}  // namespace
}  // namespace collbench::dp
