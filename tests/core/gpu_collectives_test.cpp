// GPU tests: every collective x data types x reductions x ranks 1, 2, 4, 8 x in/out of place x
// sizes (1 element, a prime, an odd large count), each checked element by element on the GPU;
// CUDA graph, aggregated and loop-timed modes; and faults that the harness must catch.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>

#include "core/metrics.hpp"
#include "core/stop_rule.hpp"
#include "report_row.hpp"
#include "sweep/runner.hpp"
#include "sweep/sweep_plan.hpp"
#include "gpu_test_support.hpp"

namespace collbench {
namespace {

RunSettings quick_settings() {
  RunSettings settings;
  settings.warmup_iters = 1;
  settings.iters = 3;
  settings.stop.max_noise_pct = 0;  // fixed: exactly 3 samples
  settings.timeout_s = 120;
  return settings;
}

// One runner for the whole suite, so each GPU count's communicators are made once.
Runner& shared_runner() {
  static Runner runner(quick_settings());
  return runner;
}

std::vector<Case> cases_for(const std::string& op, int ranks, DataType type, std::size_t elements) {
  Options options;
  options.ops = {op};
  options.gpus = std::to_string(ranks);
  options.types = {type};
  options.reduce_ops = all_reduce_ops();
  options.roots = "all";
  options.min_bytes = options.max_bytes = elements * size_of(type);
  return build_sweep(options, visible_gpu_count());
}

// NCCL 2.28.3 defect found by these tests: a single-rank, out-of-place, floating-point ncclAvg
// of about a megabyte leaves the last count mod 4 elements wrong (count mod 8 for 2-byte types);
// in place they keep the input, which is the right answer. Exactly those are accepted; anything
// else still fails (reports/h200x4/logs/nccl_avg_1rank.csv).
std::uint64_t known_nccl_defect_wrong_elements(const Case& c) {
  const bool affected = c.algo() == "nccl" && c.ranks == 1 && c.op == ReduceOp::avg && is_floating(c.type) && !c.in_place;
  return affected ? c.counts.recv % std::max<std::size_t>(4, 16 / size_of(c.type)) : 0;
}

class EveryCollective : public ::testing::TestWithParam<std::tuple<int, std::string>> {};

TEST_P(EveryCollective, IsCorrectForEveryTypeReductionSizeAndPlace) {
  const auto& [ranks, op] = GetParam();
  SKIP_WITHOUT_GPUS(ranks);
  int checked = 0;
  for (DataType type : all_data_types()) {
    for (std::size_t elements : {std::size_t{1}, std::size_t{1021}, std::size_t{262147}}) {
      for (const Case& c : cases_for(op, ranks, type, elements)) {
        const CaseOutcome outcome = shared_runner().run(c);
        if (outcome.status == report::kStatusSkipped) continue;  // e.g. in-place alltoall
        ASSERT_EQ(outcome.status, report::kStatusOk) << display_name(c) << ": " << outcome.reason;
        const std::uint64_t tolerated = known_nccl_defect_wrong_elements(c);
        if (outcome.wrong_elements != 0 && outcome.wrong_elements == tolerated) {
          std::printf("known NCCL defect reproduced: %s: %llu wrong tail elements\n", display_name(c).c_str(),
                      static_cast<unsigned long long>(tolerated));
        } else {
          EXPECT_EQ(outcome.wrong_elements, 0u) << display_name(c);
        }
        EXPECT_EQ(outcome.iteration_us.size(), 3u);
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Ranks, EveryCollective,
    ::testing::Combine(::testing::Values(1, 2, 4, 8),
                       ::testing::Values("all_reduce", "all_gather", "reduce_scatter", "broadcast",
                                         "reduce", "alltoall", "gather", "scatter", "sendrecv")),
    [](const auto& info) {
      return std::get<1>(info.param) + "_" + std::to_string(std::get<0>(info.param)) + "ranks";
    });

TEST(GpuModes, GraphReplayAndAggregationAreCorrectAndTimed) {
  SKIP_WITHOUT_GPUS(2);
  RunSettings settings = quick_settings();
  settings.graph_replays = 3;
  settings.agg_iters = 4;
  Runner runner(settings);
  for (const char* op : {"all_reduce", "all_gather", "sendrecv"}) {
    for (const Case& c : cases_for(op, 2, DataType::float32, 1 << 18)) {
      const CaseOutcome outcome = runner.run(c);
      if (outcome.status == report::kStatusSkipped) continue;
      ASSERT_EQ(outcome.status, report::kStatusOk) << display_name(c) << ": " << outcome.reason;
      EXPECT_EQ(outcome.wrong_elements, 0u) << display_name(c);
      EXPECT_EQ(outcome.iteration_us.size(), 3u);  // one sample per replay
      for (double us : outcome.iteration_us) EXPECT_GT(us, 0.0);
    }
  }
}

// nccl-tests' timing: one sample, the whole loop over its operations, for NCCL and a hand-built
// algorithm alike; the results are still checked.
TEST(GpuModes, LoopTimingGivesOneCheckedSampleOfTheWholeLoop) {
  SKIP_WITHOUT_GPUS(2);
  RunSettings settings = quick_settings();
  settings.timing = IterationTiming::loop;
  settings.agg_iters = 2;
  Runner runner(settings);
  for (const char* algo : {"nccl", "oneshot"}) {
    Case c = cases_for("all_reduce", 2, DataType::float32, 4096).front();
    c.algorithm = resolve_algorithm(algo);
    const CaseOutcome outcome = runner.run(c);
    ASSERT_EQ(outcome.status, report::kStatusOk) << display_name(c) << ": " << outcome.reason;
    EXPECT_EQ(outcome.wrong_elements, 0u) << display_name(c);
    ASSERT_EQ(outcome.iteration_us.size(), 1u) << display_name(c);
    EXPECT_GT(outcome.iteration_us.front(), 0.0) << display_name(c);
    // The sample is the slowest GPU's whole loop over every operation in it.
    double slowest_loop_us = 0;
    for (const std::vector<double>& loops : outcome.rank_duration_us) {
      ASSERT_EQ(loops.size(), 1u);
      slowest_loop_us = std::max(slowest_loop_us, loops.front());
    }
    EXPECT_NEAR(outcome.iteration_us.front() * settings.iters * settings.agg_iters, slowest_loop_us,
                1e-9 * slowest_loop_us)
        << display_name(c);
  }
}

// --max-noise: batches until the median's interval is narrow or --max-time; in every timing mode
// the samples cover the floors, each rank's own samples come back (--json), and results are checked.
TEST(GpuModes, StopWhenStableConvergesOrHitsTheTimeLimitInEveryMode) {
  SKIP_WITHOUT_GPUS(2);
  for (const char* mode : {"each", "loop", "graph"}) {
    RunSettings settings = quick_settings();
    settings.iters = std::string(mode) == "each" ? 4 : 8;
    settings.timing = std::string(mode) == "loop" ? IterationTiming::loop : IterationTiming::each;
    settings.graph_replays = std::string(mode) == "graph" ? 3 : 0;
    settings.stop.max_noise_pct = 2;
    settings.stop.min_samples = 12;
    settings.stop.max_time_s = 0.2;
    settings.keep_rank_samples = true;
    Runner runner(settings);
    const Case c = cases_for("all_reduce", 2, DataType::float32, 1 << 20).front();
    const CaseOutcome outcome = runner.run(c);
    ASSERT_EQ(outcome.status, report::kStatusOk) << mode << ": " << outcome.reason;
    EXPECT_EQ(outcome.wrong_elements, 0u) << mode;
    EXPECT_TRUE(outcome.stop == report::kStopConverged || outcome.stop == report::kStopTimeLimit) << outcome.stop;
    EXPECT_GE(outcome.iteration_us.size(), 12u) << mode;
    if (outcome.stop == report::kStopTimeLimit) {
      EXPECT_GE(timed_seconds(outcome.iteration_us, outcome.ops_per_sample), 0.2) << mode;
    }
    ASSERT_EQ(outcome.rank_samples_us.size(), 2u) << mode;
    for (int rank = 0; rank < 2; ++rank) {
      ASSERT_EQ(outcome.rank_samples_us[rank].size(), outcome.iteration_us.size()) << mode;
      // The reported sample is the slowest rank's.
      for (std::size_t s = 0; s < outcome.iteration_us.size(); ++s) {
        EXPECT_LE(outcome.rank_samples_us[rank][s], outcome.iteration_us[s] * (1 + 1e-12)) << mode;
      }
    }
    // Trace offsets grow across batches: each sample starts after the previous one ended.
    for (const std::vector<double>& starts : outcome.rank_start_us) {
      EXPECT_TRUE(std::is_sorted(starts.begin(), starts.end())) << mode;
    }
    const CaseMetrics metrics = case_metrics(c, outcome.iteration_us);
    EXPECT_TRUE(metrics.time.has_interval()) << mode;
  }
}

// -c N: N checked iterations; the injected fault corrupts the first only, so exactly one element
// is wrong, and a clean run of N checks finds none.
TEST(GpuFaults, RepeatedChecksSumTheirWrongElements) {
  SKIP_WITHOUT_GPUS(2);
  RunSettings settings = quick_settings();
  settings.check_iters = 5;
  Runner clean(settings);
  settings.fault = FaultInjection::corrupt_output;
  Runner corrupted(settings);
  for (const char* op : {"all_reduce", "alltoall", "broadcast"}) {
    const Case c = cases_for(op, 2, DataType::float32, 4096).front();
    const CaseOutcome good = clean.run(c);
    ASSERT_EQ(good.status, report::kStatusOk) << good.reason;
    EXPECT_EQ(good.wrong_elements, 0u) << display_name(c);
    const CaseOutcome bad = corrupted.run(c);
    ASSERT_EQ(bad.status, report::kStatusOk) << bad.reason;
    EXPECT_EQ(bad.wrong_elements, 1u) << display_name(c);
  }
}

TEST(GpuFaults, CorruptedOutputIsCountedExactly) {
  SKIP_WITHOUT_GPUS(2);
  RunSettings settings = quick_settings();
  settings.fault = FaultInjection::corrupt_output;
  Runner runner(settings);
  for (const char* op : {"all_reduce", "reduce", "alltoall"}) {
    const Case c = cases_for(op, 2, DataType::float32, 4096).front();
    const CaseOutcome outcome = runner.run(c);
    ASSERT_EQ(outcome.status, report::kStatusOk) << outcome.reason;
    EXPECT_EQ(outcome.wrong_elements, 1u) << display_name(c);
  }
}

TEST(GpuFaults, AllocationFailureIsOomAndTheSweepGoesOn) {
  SKIP_WITHOUT_GPUS(1);
  Runner runner(quick_settings());
  std::vector<Case> cases = cases_for("all_reduce", 1, DataType::float32, 1024);
  Case huge = cases.front();
  huge.counts = {std::size_t{1} << 50, std::size_t{1} << 50, std::size_t{1} << 50};  // 4 PiB: cannot fit
  const CaseOutcome oom = runner.run(huge);
  EXPECT_EQ(oom.status, report::kStatusOom) << oom.reason;
  EXPECT_FALSE(runner.stopped());
  const CaseOutcome next = runner.run(cases.front());
  EXPECT_EQ(next.status, report::kStatusOk) << next.reason;
  EXPECT_EQ(next.wrong_elements, 0u);
}

TEST(GpuFaults, SkippedRankEndsInACleanTimeout) {
  SKIP_WITHOUT_GPUS(2);
  RunSettings settings = quick_settings();
  settings.fault = FaultInjection::skip_rank;
  settings.timeout_s = 3;
  Runner runner(settings);
  const Case c = cases_for("all_reduce", 2, DataType::float32, 1 << 20).front();
  const auto start = std::chrono::steady_clock::now();
  const CaseOutcome outcome = runner.run(c);
  const double waited_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(outcome.status, report::kStatusTimeout) << outcome.reason;
  EXPECT_NE(outcome.reason.find("did not finish within 3 s"), std::string::npos) << outcome.reason;
  EXPECT_TRUE(runner.stopped());
  EXPECT_LT(waited_s, settings.timeout_s + 2.0);
}

}  // namespace
}  // namespace collbench
