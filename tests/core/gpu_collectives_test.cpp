// GPU tests: every collective x data types x reductions x ranks 1, 2, 4, 8 x in/out of place x
// sizes (1 element, a prime, an odd large count), each checked element by element on the GPU;
// CUDA graph, aggregated and loop-timed modes; NCCL's algorithm, protocol and CTA variants and
// --split groups; and faults that the harness must catch.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <numeric>
#include <string>

#include "algorithms/algorithm_registry.hpp"
#include "collbench/fault_injection.hpp"
#include "collbench/sweep_plan.hpp"
#include "core/buffer_registration.hpp"
#include "core/metrics.hpp"
#include "core/peer_traffic.hpp"
#include "core/stop_rule.hpp"
#include "fill_check.hpp"
#include "gpu_test_support.hpp"
#include "measure/runner.hpp"
#include "reports/report_row.hpp"
#include "runtime/cuda_resources.hpp"
#include "runtime/nccl_communicator.hpp"
#include "runtime/nccl_registration.hpp"
#include "runtime/registered_buffer.hpp"
#include "telemetry/run_metadata.hpp"

namespace collbench {
namespace {

// Hooks that make `fault` happen in every case, as collbench's --inject-fault does.
MeasurementHooksFactory faulty(const InjectedFault& fault) {
  return [fault](const std::vector<int>& local_ranks, int ranks) {
    return fault_hooks(fault, local_ranks, ranks);
  };
}

MeasureSettings quick_settings() {
  MeasureSettings settings;
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
  options.common.gpu_counts = std::to_string(ranks);
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
  const bool affected = c.algo() == "nccl" && c.ranks == 1 && c.op == ReduceOp::avg &&
                        is_floating(c.type) && !c.in_place;
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
          std::printf("known NCCL defect reproduced: %s: %llu wrong tail elements\n",
                      display_name(c).c_str(), static_cast<unsigned long long>(tolerated));
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

INSTANTIATE_TEST_SUITE_P(Ranks, EveryCollective,
                         ::testing::Combine(::testing::Values(1, 2, 4, 8),
                                            ::testing::Values("all_reduce", "all_gather",
                                                              "reduce_scatter", "broadcast",
                                                              "reduce", "alltoall", "gather",
                                                              "scatter", "sendrecv", "alltoallv")),
                         [](const auto& info) {
                           return std::get<1>(info.param) + "_" +
                                  std::to_string(std::get<0>(info.param)) + "ranks";
                         });

// alltoallv at every spread and from a matrix file whose ranks send and receive unequal totals
// (so the check also finds the receive buffers' unwritten ends untouched), several types.
class Alltoallv : public ::testing::TestWithParam<int> {};

TEST_P(Alltoallv, SpreadsAndAMatrixFileAreCorrect) {
  const int ranks = GetParam();
  SKIP_WITHOUT_GPUS(ranks);
  const std::vector<DataType> types = {DataType::int8, DataType::half, DataType::float32,
                                       DataType::float64, DataType::bfloat16};
  Options options;
  options.ops = {"alltoallv"};
  options.common.gpu_counts = std::to_string(ranks);
  options.types = types;
  options.a2av_spreads = {0.0, 0.5, 1.0};
  options.min_bytes = 1000;
  options.max_bytes = 4 << 20;
  options.step_factor = 64;  // 1000 B, 62.5 KiB, 3.8 MiB
  std::vector<Case> cases = build_sweep(options, visible_gpu_count());
  EXPECT_EQ(cases.size(), types.size() * 3 * 3);
  // Rank 0 sends 4 KiB to rank 1 and nothing to itself; rank 1 sends 1 MiB to rank 0 and 1040 B
  // to itself. On one rank, 48 KiB to itself.
  const std::string path = ::testing::TempDir() + "alltoallv_" + std::to_string(ranks) + "r.txt";
  std::ofstream(path) << (ranks == 1 ? "48K\n" : "# bytes from row to column\n0 4K\n1M 1040\n");
  options.a2av_matrix_path = path;
  options.a2av_matrix = std::make_shared<const TrafficMatrix>(read_traffic_matrix(path));
  const std::vector<Case> from_matrix = build_sweep(options, visible_gpu_count());
  ASSERT_EQ(from_matrix.size(), types.size());
  cases.insert(cases.end(), from_matrix.begin(), from_matrix.end());
  for (const Case& c : cases) {
    const CaseOutcome outcome = shared_runner().run(c);
    ASSERT_EQ(outcome.status, report::kStatusOk) << display_name(c) << ": " << outcome.reason;
    EXPECT_EQ(outcome.wrong_elements, 0u) << display_name(c);
    EXPECT_EQ(outcome.iteration_us.size(), 3u) << display_name(c);
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, Alltoallv, ::testing::Values(1, 2),
                         [](const auto& info) { return std::to_string(info.param) + "ranks"; });

// The check kernel on alltoallv's segment table: on 3 ranks where rank 2 receives 4 floats from
// rank 0 and 12 from itself into a buffer sized for rank 1's 20, a wrong element inside a segment
// and a write past the 16 are each one mismatch, and so is each of two swapped elements.
TEST(AlltoallvCheck, CountsWrongSegmentsAndWritesPastTheReceivedTotal) {
  SKIP_WITHOUT_GPUS(1);
  const PeerTraffic traffic(parse_traffic_matrix("m", "0 64 16\n0 0 0\n32 16 48\n"), 4, 0, "");
  const CollectiveSpec& spec = find_collective("alltoallv");
  const int rank = 2;
  ASSERT_EQ(traffic.most_received(), 20u);
  ASSERT_EQ(traffic.received_by(rank), 16u);
  const std::vector<std::uint64_t> segments = traffic.receive_segments(rank);
  kernels::PatternParams params{
      9, 3, 0, 0, kernels::ElementType::float32, kernels::Reduction::none};
  params.segments = segments.data();
  std::vector<float> output(20);
  for (std::size_t j = 0; j < output.size(); ++j) {
    if (kernels::beyond_received(params, spec.expected, j)) {
      std::memset(&output[j], kernels::poison_byte(params.type), sizeof(float));
    } else {
      output[j] = static_cast<float>(kernels::expected_value(params, spec.expected, rank, j));
    }
  }
  ScopedDevice on(0, 0);
  Stream stream(0);
  DeviceBuffer data(0, output.size() * sizeof(float));
  DeviceBuffer table(0, segments.size() * sizeof(std::uint64_t));
  DeviceBuffer counter(0, sizeof(unsigned long long));
  CB_CUDA_CHECK(cudaMemcpy(table.get(), segments.data(), table.bytes(), cudaMemcpyHostToDevice));
  params.segments = table.as<const std::uint64_t>();
  const auto mismatches = [&](const std::vector<float>& values) {
    CB_CUDA_CHECK(cudaMemcpy(data.get(), values.data(), data.bytes(), cudaMemcpyHostToDevice));
    CB_CUDA_CHECK(cudaMemset(counter.get(), 0, sizeof(unsigned long long)));
    kernels::launch_count_mismatches(data.get(), values.size(), params, spec.expected, rank,
                                     counter.as<unsigned long long>(), stream.get());
    CB_CHECK_LAUNCH();
    CB_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    unsigned long long wrong = 0;
    CB_CUDA_CHECK(cudaMemcpy(&wrong, counter.get(), sizeof(wrong), cudaMemcpyDeviceToHost));
    return wrong;
  };
  EXPECT_EQ(mismatches(output), 0u);
  std::vector<float> wrong_value = output;
  wrong_value[9] += 1;  // rank 2's own segment (elements 4 to 15)
  EXPECT_EQ(mismatches(wrong_value), 1u);
  std::vector<float> written_past = output;
  written_past[17] = 0;  // past the 16 received
  EXPECT_EQ(mismatches(written_past), 1u);
  std::vector<float> swapped = output;
  ASSERT_NE(swapped[0], swapped[4]);
  std::swap(swapped[0], swapped[4]);  // the first of rank 0's segment and of rank 2's own
  EXPECT_EQ(mismatches(swapped), 2u);
}

TEST(GpuModes, GraphReplayAndAggregationAreCorrectAndTimed) {
  SKIP_WITHOUT_GPUS(2);
  MeasureSettings settings = quick_settings();
  settings.graph_replays = 3;
  settings.agg_iters = 4;
  Runner runner(settings);
  for (const char* op : {"all_reduce", "all_gather", "sendrecv", "alltoallv"}) {
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
  MeasureSettings settings = quick_settings();
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
// the samples cover the floors, each rank's own samples come back (--json), and results are
// checked.
TEST(GpuModes, StopWhenStableConvergesOrHitsTheTimeLimitInEveryMode) {
  SKIP_WITHOUT_GPUS(2);
  for (const char* mode : {"each", "loop", "graph"}) {
    MeasureSettings settings = quick_settings();
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
    EXPECT_TRUE(outcome.stop == report::kStopConverged || outcome.stop == report::kStopTimeLimit)
        << outcome.stop;
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
  MeasureSettings settings = quick_settings();
  settings.check_iters = 5;
  Runner clean(settings);
  const InjectedFault fault = {FaultKind::corrupt_output};
  Runner corrupted(settings, nullptr, faulty(fault));
  for (const char* op : {"all_reduce", "alltoall", "broadcast", "alltoallv"}) {
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
  MeasureSettings settings = quick_settings();
  const InjectedFault fault = {FaultKind::corrupt_output};
  Runner runner(settings, nullptr, faulty(fault));
  for (const char* op : {"all_reduce", "reduce", "alltoall", "alltoallv"}) {
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
  huge.counts = {std::size_t{1} << 50, std::size_t{1} << 50,
                 std::size_t{1} << 50};  // 4 PiB: cannot fit
  const CaseOutcome oom = runner.run(huge);
  EXPECT_EQ(oom.status, report::kStatusOom) << oom.reason;
  EXPECT_FALSE(runner.stopped());
  const CaseOutcome next = runner.run(cases.front());
  EXPECT_EQ(next.status, report::kStatusOk) << next.reason;
  EXPECT_EQ(next.wrong_elements, 0u);
}

TEST(GpuFaults, SkippedRankEndsInACleanTimeout) {
  SKIP_WITHOUT_GPUS(2);
  MeasureSettings settings = quick_settings();
  const InjectedFault fault = {FaultKind::skip_rank};
  settings.timeout_s = 3;
  Runner runner(settings, nullptr, faulty(fault));
  const Case c = cases_for("all_reduce", 2, DataType::float32, 1 << 20).front();
  const auto start = std::chrono::steady_clock::now();
  const CaseOutcome outcome = runner.run(c);
  const double waited_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(outcome.status, report::kStatusTimeout) << outcome.reason;
  EXPECT_NE(outcome.reason.find("did not finish within 3 s"), std::string::npos) << outcome.reason;
  EXPECT_TRUE(runner.stopped());
  EXPECT_LT(waited_s, settings.timeout_s + 2.0);
}

// skip_rank:0: rank 0 leaves out the middle timed collective (the second of 3), so rank 1's last
// one never finds a peer; the reason names rank 0 as not having started it and rank 1 as waiting.
TEST(GpuFaults, SkippedRankIsNamedInTheTimeout) {
  SKIP_WITHOUT_GPUS(2);
  MeasureSettings settings = quick_settings();
  const InjectedFault fault = parse_injected_fault("skip_rank:0");
  settings.timeout_s = 3;
  Runner runner(settings, nullptr, faulty(fault));
  const Case c = cases_for("all_reduce", 2, DataType::float32, 1 << 18).front();
  const CaseOutcome outcome = runner.run(c);
  ASSERT_EQ(outcome.status, report::kStatusTimeout) << outcome.reason;
  char bus[2][32] = {};
  for (int device = 0; device < 2; ++device)
    ASSERT_EQ(cudaDeviceGetPCIBusId(bus[device], 32, device), cudaSuccess);
  const std::string host = host_name();
  // 1 warm-up and 3 timed operations asked for; rank 0 launched 3 of them and has nothing left.
  EXPECT_EQ(outcome.reason,
            display_name(c) + " did not finish within 3 s: rank 0 (host " + host + ", GPU 0 [" +
                bus[0] +
                "]) had not started operation 4 of 4 (launched 3, idle); waiting inside it: "
                "rank 1 (host " +
                host + ", GPU 1 [" + bus[1] + "])");
}

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// slow_rank:1: an SmHog holds half of GPU 1's SMs during warm-up and timing, so a bandwidth-bound
// all_reduce takes at least 1.5 times as long as on clean GPUs (17x in a probe on 2x H200), and is
// still right.
TEST(GpuFaults, SlowRankSlowsTheCollectiveAndStaysCorrect) {
  SKIP_WITHOUT_GPUS(2);
  MeasureSettings settings = quick_settings();
  settings.iters = 10;
  Runner clean(settings);
  const InjectedFault fault = parse_injected_fault("slow_rank:1");  // half of GPU 1's SMs
  Runner slowed(settings, nullptr, faulty(fault));
  const Case c = cases_for("all_reduce", 2, DataType::float32, (64u << 20) / 4).front();
  const CaseOutcome fast = clean.run(c);
  const CaseOutcome slow = slowed.run(c);
  ASSERT_EQ(fast.status, report::kStatusOk) << fast.reason;
  ASSERT_EQ(slow.status, report::kStatusOk) << slow.reason;
  EXPECT_EQ(slow.wrong_elements, 0u);
  const double clean_us = median_of(fast.iteration_us), slow_us = median_of(slow.iteration_us);
  std::printf("all_reduce 64 MiB p50: clean %.1f us, rank 1 on half its SMs %.1f us (%.2fx)\n",
              clean_us, slow_us, slow_us / clean_us);
  EXPECT_GE(slow_us, 1.5 * clean_us);
}

// late_rank:1:2: rank 1's worker sleeps 2 ms before each timed sample, so it launches every
// sample at least 2 ms after rank 0, which launches first every time (lateness exactly 0).
TEST(GpuFaults, LateRankShowsInItsLateness) {
  SKIP_WITHOUT_GPUS(2);
  MeasureSettings settings = quick_settings();
  settings.iters = 8;
  settings.keep_rank_samples = true;
  const InjectedFault fault = parse_injected_fault("late_rank:1:2");
  Runner runner(settings, nullptr, faulty(fault));
  const Case c = cases_for("all_reduce", 2, DataType::float32, 1 << 18).front();
  const CaseOutcome outcome = runner.run(c);
  ASSERT_EQ(outcome.status, report::kStatusOk) << outcome.reason;
  EXPECT_EQ(outcome.wrong_elements, 0u);
  ASSERT_EQ(outcome.rank_lateness_us.size(), 2u);
  ASSERT_EQ(outcome.rank_samples_us.size(), 2u);
  for (const std::vector<double>& lateness : outcome.rank_lateness_us) {
    ASSERT_EQ(lateness.size(), outcome.iteration_us.size());
  }
  const auto mean = [](const std::vector<double>& values) {
    return std::accumulate(values.begin(), values.end(), 0.0) / values.size();
  };
  EXPECT_GE(mean(outcome.rank_lateness_us[1]), 1500.0);
  EXPECT_LT(mean(outcome.rank_lateness_us[0]), 100.0);
  for (std::size_t s = 0; s < outcome.iteration_us.size(); ++s) {
    EXPECT_EQ(std::min(outcome.rank_lateness_us[0][s], outcome.rank_lateness_us[1][s]), 0.0) << s;
  }
}

// The cases of `op` (float, sum, out of place, root 0) on `ranks` GPUs with `options` as
// `configure` leaves them.
template <typename Configure>
std::vector<Case> variant_cases(const std::string& op, int ranks, std::size_t elements,
                                Configure&& configure) {
  Options options;
  options.ops = {op};
  options.common.gpu_counts = std::to_string(ranks);
  options.in_place = InPlaceMode::out_of_place;
  options.min_bytes = options.max_bytes = elements * sizeof(float);
  configure(options);
  return build_sweep(options, visible_gpu_count());
}

bool nccl_refused(const CaseOutcome& outcome) {
  return outcome.status == report::kStatusSkipped &&
         outcome.reason.find("NCCL refuses it") != std::string::npos;
}

// Every protocol NCCL accepts here, for reductions, gathers and a rooted op, checked element by
// element; a protocol NCCL refuses is skipped with its reason (Simple never is).
TEST(GpuCommunicatorVariants, EveryNcclProtocolIsCorrect) {
  SKIP_WITHOUT_GPUS(2);
  Runner runner(quick_settings());
  for (const char* proto : {"LL", "LL128", "Simple"}) {
    for (const char* op : {"all_reduce", "all_gather", "broadcast"}) {
      for (const Case& c :
           variant_cases(op, 2, 262147, [&](Options& o) { o.axes.nccl_protos = {proto}; })) {
        ASSERT_EQ(c.config(), std::string("nccl_proto=") + proto);
        const CaseOutcome outcome = runner.run(c);
        if (nccl_refused(outcome) && std::string(proto) != "Simple") {
          std::printf("%s: %s\n", display_name(c).c_str(), outcome.reason.c_str());
          continue;
        }
        ASSERT_EQ(outcome.status, report::kStatusOk) << display_name(c) << ": " << outcome.reason;
        EXPECT_EQ(outcome.wrong_elements, 0u) << display_name(c);
        EXPECT_EQ(outcome.iteration_us.size(), 3u);
      }
    }
  }
}

// NCCL_ALGO=Ring runs all_reduce; Tree may be refused on one node, and then is skipped with
// NCCL's reason, never an error. Either way the environment is NCCL_ALGO's while that
// combination's communicators live, and the user's (unset) once they are gone.
TEST(GpuCommunicatorVariants, RingAndTreeAllReduce) {
  SKIP_WITHOUT_GPUS(2);
  ASSERT_EQ(std::getenv("NCCL_ALGO"), nullptr) << "run without NCCL_ALGO in the environment";
  Runner runner(quick_settings());
  for (const char* algo : {"Ring", "Tree"}) {
    for (const Case& c :
         variant_cases("all_reduce", 2, 1 << 20, [&](Options& o) { o.axes.nccl_algos = {algo}; })) {
      const CaseOutcome outcome = runner.run(c);
      ASSERT_NE(std::getenv("NCCL_ALGO"), nullptr);
      EXPECT_EQ(std::string(std::getenv("NCCL_ALGO")), algo);
      if (std::string(algo) == "Tree" && nccl_refused(outcome)) {
        std::printf("%s: %s\n", display_name(c).c_str(), outcome.reason.c_str());
        EXPECT_NE(outcome.reason.find("nccl_algo=Tree"), std::string::npos) << outcome.reason;
        continue;
      }
      ASSERT_EQ(outcome.status, report::kStatusOk) << display_name(c) << ": " << outcome.reason;
      EXPECT_EQ(outcome.wrong_elements, 0u) << display_name(c);
    }
  }
  const CaseOutcome plain = runner.run(cases_for("all_reduce", 2, DataType::float32, 4096).front());
  EXPECT_EQ(plain.status, report::kStatusOk) << plain.reason;
  EXPECT_EQ(std::getenv("NCCL_ALGO"), nullptr);
}

// A CTA limit (ncclConfig_t maxCTAs) gives communicators of its own whose results are right.
TEST(GpuCommunicatorVariants, MaxCtasIsCorrect) {
  SKIP_WITHOUT_GPUS(2);
  Runner runner(quick_settings());
  for (const char* op : {"all_reduce", "reduce_scatter", "alltoall"}) {
    for (const Case& c : variant_cases(op, 2, 262147, [](Options& o) {
           o.axes.nccl_max_ctas = {1, 4};
         })) {
      const CaseOutcome outcome = runner.run(c);
      ASSERT_EQ(outcome.status, report::kStatusOk) << display_name(c) << ": " << outcome.reason;
      EXPECT_EQ(outcome.wrong_elements, 0u) << display_name(c);
      EXPECT_NE(c.config().find("nccl_max_ctas="), std::string::npos);
    }
  }
}

// NCCL_ALGO=Tree has no all_gather: NCCL refuses it at launch, the case is skipped with NCCL's
// reason, and the same communicators run the next cases (sendrecv, which no NCCL_ALGO touches;
// all_reduce unless Tree is refused here too).
TEST(GpuCommunicatorVariants, RefusedCombinationIsSkippedAndTheNextCaseRuns) {
  SKIP_WITHOUT_GPUS(2);
  Runner runner(quick_settings());
  const auto tree = [](Options& o) { o.axes.nccl_algos = {"Tree"}; };
  const Case gather = variant_cases("all_gather", 2, 4096, tree).front();
  const CaseOutcome refused = runner.run(gather);
  EXPECT_EQ(refused.status, report::kStatusSkipped) << refused.reason;
  EXPECT_TRUE(nccl_refused(refused)) << refused.reason;
  EXPECT_NE(refused.reason.find("no algorithm/protocol available"), std::string::npos)
      << refused.reason;
  EXPECT_FALSE(runner.stopped());
  for (const char* op : {"sendrecv", "all_reduce"}) {
    const Case next = variant_cases(op, 2, 4096, tree).front();
    ASSERT_EQ(communicator_config(next.communicator, 2),
              communicator_config(gather.communicator, 2));
    const CaseOutcome outcome = runner.run(next);
    if (std::string(op) == "all_reduce" && nccl_refused(outcome)) continue;
    ASSERT_EQ(outcome.status, report::kStatusOk) << display_name(next) << ": " << outcome.reason;
    EXPECT_EQ(outcome.wrong_elements, 0u) << display_name(next);
  }
}

// --split on `ranks` GPUs: every group runs each op at once, checked with group ranks and size;
// each group's samples are its slowest rank's, and the row's sample is the slowest group's.
void expect_split_groups_correct(int ranks, const char* rule) {
  MeasureSettings settings = quick_settings();
  settings.keep_rank_samples = true;
  Runner runner(settings);
  int checked = 0;
  for (const char* op : {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce",
                         "alltoall", "sendrecv"}) {
    const auto split = [&](Options& o) {
      o.split = parse_split_rule(rule);
      o.roots = "all";
    };
    for (const Case& c : variant_cases(op, ranks, 262147, split)) {
      SCOPED_TRACE(display_name(c));
      const std::vector<std::vector<int>> groups = c.groups();
      const CaseOutcome outcome = runner.run(c);
      ASSERT_EQ(outcome.status, report::kStatusOk) << outcome.reason;
      EXPECT_EQ(outcome.wrong_elements, 0u);
      ASSERT_EQ(outcome.group_samples_us.size(), groups.size());
      ASSERT_EQ(outcome.rank_samples_us.size(), static_cast<std::size_t>(ranks));
      for (std::size_t s = 0; s < outcome.iteration_us.size(); ++s) {
        double slowest_group = 0;
        for (std::size_t g = 0; g < groups.size(); ++g) {
          ASSERT_EQ(outcome.group_samples_us[g].size(), outcome.iteration_us.size());
          double slowest_rank = 0;
          for (int rank : groups[g])
            slowest_rank = std::max(slowest_rank, outcome.rank_samples_us[rank][s]);
          EXPECT_DOUBLE_EQ(outcome.group_samples_us[g][s], slowest_rank);
          slowest_group = std::max(slowest_group, outcome.group_samples_us[g][s]);
        }
        EXPECT_NEAR(outcome.iteration_us[s], slowest_group, 1e-9 * slowest_group);
      }
      CaseMetrics metrics = case_metrics(c, outcome.iteration_us);
      add_group_metrics(metrics, c, outcome.group_samples_us);
      EXPECT_EQ(metrics.groups.size(), groups.size());
      // A group of one rank moves no bus bytes (bus factor 0 for every op that is not
      // broadcast, reduce or sendrecv), as nccl-tests' busbw of one rank is 0.
      if (c.spec->bus_factor(c.group_ranks()) > 0) {
        EXPECT_GT(metrics.aggregate_busbw_gbps, 0);
      } else {
        EXPECT_EQ(metrics.aggregate_busbw_gbps, 0);
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 0);
}

// MOD 2 makes two groups of one GPU; DIV 2 one group of both (on a split communicator).
TEST(GpuCommunicatorVariants, SplitOnTwoGpus) {
  SKIP_WITHOUT_GPUS(2);
  expect_split_groups_correct(2, "MOD 2");
  expect_split_groups_correct(2, "DIV 2");
}

TEST(GpuCommunicatorVariants, SplitInGroupsOfSeveralOnFourOrMoreGpus) {
  SKIP_WITHOUT_GPUS(4);
  const int ranks = largest_doubling_gpu_count();
  expect_split_groups_correct(ranks, "MOD 2");
  expect_split_groups_correct(ranks, "DIV 2");
}

// A hand-built algorithm is one clique of every rank: under --split it is skipped, as is a split
// into groups of unequal size; neither creates communicators or stops the sweep.
TEST(GpuCommunicatorVariants, SplitSkipsHandBuiltAlgorithmsAndUnequalGroups) {
  SKIP_WITHOUT_GPUS(2);
  Runner runner(quick_settings());
  const Case ring = variant_cases("all_reduce", 2, 4096, [](Options& o) {
                      o.algos = {"ring"};
                      o.split = parse_split_rule("MOD 2");
                    }).front();
  const CaseOutcome skipped = runner.run(ring);
  EXPECT_EQ(skipped.status, report::kStatusSkipped);
  EXPECT_NE(skipped.reason.find("--split runs NCCL only"), std::string::npos) << skipped.reason;
  if (visible_gpu_count() >= 3) {
    const Case uneven = variant_cases("all_reduce", 3, 4096, [](Options& o) {
                          o.split = parse_split_rule("MOD 2");
                        }).front();
    const CaseOutcome outcome = runner.run(uneven);
    EXPECT_EQ(outcome.status, report::kStatusSkipped);
    EXPECT_NE(outcome.reason.find("unequal size on 3 GPUs (0,2 | 1)"), std::string::npos)
        << outcome.reason;
  }
  EXPECT_FALSE(runner.stopped());
}

// --register: the cases of one op, ranks and mode at one size (float and bfloat16, sum and max,
// every root, in and out of place).
std::vector<Case> registered_cases(const std::string& op, int ranks, BufferRegistration mode,
                                   std::size_t elements,
                                   std::vector<DataType> types = {DataType::float32,
                                                                  DataType::bfloat16}) {
  Options options;
  options.ops = {op};
  options.common.gpu_counts = std::to_string(ranks);
  options.types = std::move(types);
  options.reduce_ops = {ReduceOp::sum, ReduceOp::max};
  options.roots = "all";
  options.min_bytes = options.max_bytes = elements * size_of(options.types.front());
  options.axes.registrations = {mode};
  return build_sweep(options, visible_gpu_count());
}

bool nccl_has_symmetric_windows() {
  return nccl_runtime_version_code() >= kSymmetricRegistrationMinVersion;
}

class RegisteredCollective : public ::testing::TestWithParam<std::tuple<int, BufferRegistration>> {
};

// Every collective on locally registered buffers and on symmetric windows: right, element by
// element, out of place and in place.
TEST_P(RegisteredCollective, EveryOpIsCorrect) {
  const auto& [ranks, mode] = GetParam();
  SKIP_WITHOUT_GPUS(ranks);
  if (mode == BufferRegistration::symmetric && !nccl_has_symmetric_windows()) {
    GTEST_SKIP() << "NCCL " << nccl_version_text(nccl_runtime_version_code())
                 << " has no symmetric windows";
  }
  int checked = 0;
  for (const CollectiveSpec& spec : collective_registry()) {
    for (std::size_t elements : {std::size_t{1021}, std::size_t{262147}}) {
      for (const Case& c : registered_cases(std::string(spec.name), ranks, mode, elements)) {
        // alltoallv's rows name their traffic first.
        ASSERT_EQ(c.config(), c.traffic ? c.traffic->config() + ";" + registration_config(mode)
                                        : registration_config(mode));
        const CaseOutcome outcome = shared_runner().run(c);
        ASSERT_EQ(outcome.status, report::kStatusOk) << display_name(c) << ": " << outcome.reason;
        EXPECT_EQ(outcome.wrong_elements, 0u) << display_name(c);
        EXPECT_EQ(outcome.iteration_us.size(), 3u) << display_name(c);
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 0);
}

INSTANTIATE_TEST_SUITE_P(Modes, RegisteredCollective,
                         ::testing::Combine(::testing::Values(1, 2),
                                            ::testing::Values(BufferRegistration::local,
                                                              BufferRegistration::symmetric)),
                         [](const auto& info) {
                           return std::string(name_of(std::get<1>(info.param))) + "_" +
                                  std::to_string(std::get<0>(info.param)) + "ranks";
                         });

// Captured launches on registered buffers (registered before the capture): right, and timed per
// replay.
TEST(GpuRegistration, GraphReplaysOnRegisteredBuffersAreCorrect) {
  SKIP_WITHOUT_GPUS(2);
  MeasureSettings settings = quick_settings();
  settings.graph_replays = 3;
  settings.agg_iters = 2;
  Runner runner(settings);
  for (BufferRegistration mode : {BufferRegistration::symmetric, BufferRegistration::local}) {
    if (mode == BufferRegistration::symmetric && !nccl_has_symmetric_windows()) continue;
    for (const char* op : {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "alltoall"}) {
      for (const Case& c : registered_cases(op, 2, mode, 1 << 18, {DataType::float32})) {
        const CaseOutcome outcome = runner.run(c);
        ASSERT_EQ(outcome.status, report::kStatusOk) << display_name(c) << ": " << outcome.reason;
        EXPECT_EQ(outcome.wrong_elements, 0u) << display_name(c);
        EXPECT_EQ(outcome.iteration_us.size(), 3u) << display_name(c);  // one sample per replay
      }
    }
  }
  if (!nccl_has_symmetric_windows()) GTEST_SKIP() << "symmetric windows untested: NCCL before 2.27";
}

// The peer-kernel algorithms map memory themselves: registered cases are skipped with a reason and
// the sweep goes on. ring_sendrecv moves data only through ncclSend/ncclRecv: it runs registered.
TEST(GpuRegistration, PeerKernelAlgorithmsAreSkippedAndRingSendrecvRunsRegistered) {
  SKIP_WITHOUT_GPUS(2);
  Runner runner(quick_settings());
  for (BufferRegistration mode : {BufferRegistration::symmetric, BufferRegistration::local}) {
    for (const char* algo :
         {"ring", "oneshot", "twoshot", "copy_engine", "copy_engine_ring", "ring_sendrecv"}) {
      for (Case c : registered_cases("all_reduce", 2, mode, 262147, {DataType::float32})) {
        c.algorithm = resolve_algorithm(algo);
        const CaseOutcome outcome = runner.run(c);
        if (std::string(algo) == "ring_sendrecv" &&
            (mode == BufferRegistration::local || nccl_has_symmetric_windows())) {
          ASSERT_EQ(outcome.status, report::kStatusOk) << display_name(c) << ": " << outcome.reason;
          EXPECT_EQ(outcome.wrong_elements, 0u) << display_name(c);
        } else if (std::string(algo) != "ring_sendrecv") {
          EXPECT_EQ(outcome.status, report::kStatusSkipped) << display_name(c);
          EXPECT_NE(outcome.reason.find(algo), std::string::npos) << outcome.reason;
          EXPECT_NE(outcome.reason.find("register=" + std::string(name_of(mode))),
                    std::string::npos)
              << outcome.reason;
        }
        ASSERT_FALSE(runner.stopped()) << runner.stop_reason();
      }
    }
  }
  // The same algorithm object afterwards on plain buffers: its scratch registration is gone again.
  for (Case c :
       registered_cases("all_reduce", 2, BufferRegistration::none, 262147, {DataType::float32})) {
    c.algorithm = resolve_algorithm("ring_sendrecv");
    const CaseOutcome outcome = runner.run(c);
    ASSERT_EQ(outcome.status, report::kStatusOk) << display_name(c) << ": " << outcome.reason;
    EXPECT_EQ(outcome.wrong_elements, 0u) << display_name(c);
  }
}

// Registration modes that switch back and forth (symmetric only where this NCCL has windows), so
// that buffers and registrations are made again, kept and dropped in every order.
std::vector<BufferRegistration> switching_modes() {
  if (!nccl_has_symmetric_windows()) {
    return {BufferRegistration::local, BufferRegistration::none, BufferRegistration::local};
  }
  return {BufferRegistration::symmetric, BufferRegistration::local, BufferRegistration::symmetric,
          BufferRegistration::none, BufferRegistration::symmetric};
}

// ring_sendrecv's scratch receives what the case's buffers send, so NCCL must see it registered
// and mappable exactly when it sees them so: past NCCL's LL threshold (the 1 MiB and 16 MiB cases)
// a send/recv goes zero-copy between registered ncclMemAlloc buffers, and one side zero-copy with
// the other through NCCL's own buffers hangs both kernels. Modes switch back and forth on the one
// algorithm object, so its scratch is made again each time; a hang fails at the deadline.
TEST(GpuRegistration, RingSendrecvScratchIsRegisteredLikeTheCaseBuffers) {
  SKIP_WITHOUT_GPUS(2);
  MeasureSettings settings = quick_settings();
  settings.timeout_s = 60;
  Runner runner(settings);
  const std::vector<BufferRegistration> modes = switching_modes();
  for (BufferRegistration mode : modes) {
    for (std::size_t elements :
         {std::size_t{1021}, std::size_t{262147}, std::size_t{(1 << 22) + 3}}) {
      for (Case c : registered_cases("all_reduce", 2, mode, elements, {DataType::float32})) {
        c.algorithm = resolve_algorithm("ring_sendrecv");
        const CaseOutcome outcome = runner.run(c);
        ASSERT_EQ(outcome.status, report::kStatusOk) << display_name(c) << ": " << outcome.reason;
        EXPECT_EQ(outcome.wrong_elements, 0u) << display_name(c);
      }
    }
  }
}

// One runner through sizes that grow, shrink and grow again, and modes that change back and forth:
// every case right (buffers re-registered when they grow or change mode, kept otherwise).
TEST(GpuRegistration, GrowingAndSwitchingBuffersStayCorrect) {
  SKIP_WITHOUT_GPUS(2);
  Runner runner(quick_settings());
  const std::vector<BufferRegistration> modes = switching_modes();
  for (BufferRegistration mode : modes) {
    for (std::size_t elements : {std::size_t{1021}, std::size_t{1} << 20, std::size_t{1} << 24,
                                 std::size_t{4096}, std::size_t{(1 << 22) + 7}}) {
      for (const char* op : {"all_reduce", "all_gather", "reduce_scatter"}) {
        for (const Case& c : registered_cases(op, 2, mode, elements, {DataType::float32})) {
          const CaseOutcome outcome = runner.run(c);
          ASSERT_EQ(outcome.status, report::kStatusOk) << display_name(c) << ": " << outcome.reason;
          EXPECT_EQ(outcome.wrong_elements, 0u) << display_name(c);
        }
      }
    }
  }
}

// The buffer itself: registered once, kept while big enough, new memory (unregistered until
// registered again) when it grows or changes mode; NCCL reduces right on what it registered.
TEST(GpuRegistration, RegisteredBufferReregistersWhenItGrows) {
  SKIP_WITHOUT_GPUS(2);
  std::vector<NcclCommunicator> comms = create_single_process_communicators({0, 1});
  std::vector<BufferRegistration> modes = {BufferRegistration::local};
  if (nccl_has_symmetric_windows()) modes.push_back(BufferRegistration::symmetric);
  for (BufferRegistration mode : modes) {
    SCOPED_TRACE(std::string(name_of(mode)));
    std::vector<RegisteredBuffer> buffers(2);
    const std::vector<BufferOfRank> entries = {{&buffers[0], comms[0].get(), 0},
                                               {&buffers[1], comms[1].get(), 1}};
    for (int r = 0; r < 2; ++r) buffers[r].ensure_capacity(mode, r, 4096);
    EXPECT_FALSE(buffers[0].registered());
    register_buffers(entries);
    ASSERT_TRUE(buffers[0].registered() && buffers[1].registered());
    const std::size_t capacity = buffers[0].bytes();
    EXPECT_GE(capacity, 4096u);
    EXPECT_EQ(buffers[1].bytes(), capacity);  // windows are the same size on every rank
    if (mode == BufferRegistration::symmetric) {
      EXPECT_EQ(capacity % nccl_allocation_granularity(0), 0u);
    }
    void* first = buffers[0].get();
    for (int r = 0; r < 2; ++r) buffers[r].ensure_capacity(mode, r, 1024);
    EXPECT_EQ(buffers[0].get(), first);
    EXPECT_TRUE(buffers[0].registered());
    for (int r = 0; r < 2; ++r) buffers[r].ensure_capacity(mode, r, capacity + 1);
    EXPECT_FALSE(buffers[0].registered());
    EXPECT_GE(buffers[0].bytes(), capacity + 1);
    register_buffers(entries);
    ASSERT_TRUE(buffers[0].registered() && buffers[1].registered());

    // An in-place sum over the grown, registered buffers: rank 0 holds bytes of 1, rank 1 of 2.
    const std::size_t count = capacity + 1;
    for (int r = 0; r < 2; ++r) {
      ScopedDevice on(r);
      ASSERT_EQ(cudaMemset(buffers[r].get(), r + 1, count), cudaSuccess);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    }
    ASSERT_EQ(ncclGroupStart(), ncclSuccess);
    for (int r = 0; r < 2; ++r) {
      ScopedDevice on(r);
      ASSERT_EQ(ncclAllReduce(buffers[r].get(), buffers[r].get(), count, ncclUint8, ncclSum,
                              comms[r].get(), nullptr),
                ncclSuccess);
    }
    ASSERT_EQ(ncclGroupEnd(), ncclSuccess);
    for (int r = 0; r < 2; ++r) {
      ScopedDevice on(r);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      std::vector<unsigned char> result(count);
      ASSERT_EQ(cudaMemcpy(result.data(), buffers[r].get(), count, cudaMemcpyDeviceToHost),
                cudaSuccess);
      EXPECT_EQ(std::count(result.begin(), result.end(), 3), static_cast<long>(count))
          << "rank " << r;
    }

    // Another mode: other memory, registered as that mode asks.
    const BufferRegistration other =
        mode == BufferRegistration::local ? BufferRegistration::none : BufferRegistration::local;
    for (int r = 0; r < 2; ++r) buffers[r].ensure_capacity(other, r, 1024);
    EXPECT_EQ(buffers[0].mode(), other);
    EXPECT_EQ(buffers[0].registered(), other == BufferRegistration::none);
    register_buffers(entries);
    EXPECT_TRUE(buffers[0].registered() && buffers[1].registered());
  }
}

// --split with alltoallv and with --register: each group runs alltoallv on traffic worked out for
// the group's size and registers its buffers on its own communicator (symmetric windows are
// collective over the group); every case right, each group's samples there.
TEST(GpuCommunicatorVariants, SplitRunsAlltoallvAndRegisteredBuffers) {
  SKIP_WITHOUT_GPUS(2);
  const int ranks = visible_gpu_count() >= 4 ? largest_doubling_gpu_count() : 2;
  std::vector<BufferRegistration> modes = {BufferRegistration::none, BufferRegistration::local};
  if (nccl_has_symmetric_windows()) modes.push_back(BufferRegistration::symmetric);
  Runner runner(quick_settings());
  int checked = 0;
  for (const char* rule : {"MOD 2", "DIV 2"}) {
    for (const char* op : {"alltoallv", "all_reduce", "all_gather"}) {
      const auto configure = [&](Options& o) {
        o.split = parse_split_rule(rule);
        o.axes.registrations = modes;
        o.a2av_spreads = {0.0, 1.0};
      };
      for (const Case& c : variant_cases(op, ranks, 262147, configure)) {
        SCOPED_TRACE(display_name(c));
        ASSERT_TRUE(c.skip_reason.empty()) << c.skip_reason;
        if (c.traffic) {
          EXPECT_EQ(c.traffic->ranks(), c.group_ranks());
        }
        const CaseOutcome outcome = runner.run(c);
        ASSERT_EQ(outcome.status, report::kStatusOk) << outcome.reason;
        EXPECT_EQ(outcome.wrong_elements, 0u);
        EXPECT_EQ(outcome.group_samples_us.size(), c.groups().size());
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 2 * (2 + 1 + 1) * static_cast<int>(modes.size()));
  EXPECT_FALSE(runner.stopped());
}

}  // namespace
}  // namespace collbench
