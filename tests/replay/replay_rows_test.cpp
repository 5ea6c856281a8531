// The replay's report rows from known figures: one row per communicator, op, dtype and reduction
// (the registry's names, sendrecv for pairs; bytes per iteration; count where the calls agree;
// one root or -1), the calls' time per call whole, a failed check as an error row, the window's
// row with its concurrency figures, a config that names the communicator and the NCCL settings,
// and every row valid to collreport's reader.
#include "report/replay_rows.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "replayed_job.hpp"
#include "reports/csv_reader.hpp"
#include "reports/csv_writer.hpp"
#include "reports/schema.hpp"
#include "workload_files.hpp"

namespace collbench::replay::testing {
namespace {

constexpr const char* kTimestamp = "2026-11-22T14:27:21Z";

ReplayRunInfo run_info() {
  ReplayRunInfo info;
  info.workload_name = "mixed_job";
  info.origin.host = "node1";
  info.origin.nccl_version = "2.28.3";
  info.warmup = 5;
  info.iters = 30;
  info.nccl_config = "nccl_algo=Ring";
  return info;
}

struct Replayed {
  WorkloadOps workload = mixed_job();
  ReplayFigures figures;
  std::vector<report::ReportRow> rows;
};

// The mixed job with 5 wrong elements in rank 1's second float all_reduce.
Replayed replayed(const ReplayRunInfo& info = run_info()) {
  Replayed r;
  FabricatedTiming timing;
  timing.wrong_op = 1;
  timing.wrong_elements = 5;
  r.figures = replay_figures(r.workload, fabricated_results(r.workload, timing));
  r.rows = replay_report_rows(r.workload, r.figures, info, kTimestamp);
  return r;
}

struct ExpectedRow {
  const char* op;
  const char* dtype;
  const char* redop;
  int root;
  std::uint64_t bytes;  // per iteration
  std::uint64_t count;  // 0: the calls' counts differ
  const char* extra;
  std::uint64_t wrong_elements;
};

TEST(ReplayRows, OneRowPerCommunicatorOpAndDtypeThenTheWindow) {
  const Replayed r = replayed();
  const std::vector<ExpectedRow> expected = {
      // Two calls of 1024 floats; rank 1's second was wrong.
      {"all_reduce", "float", "sum", -1, 2 * 4096, 1024, "calls=2", 5},
      {"all_reduce", "bfloat16", "sum", -1, 4096, 2048, "calls=1", 0},
      // The busiest member's buffer: rank 1 sends 7 and receives 6 floats; counts 3 and 7 differ.
      {"alltoallv", "float", "none", -1, 28, 0, "calls=1", 0},
      {"broadcast", "float", "none", -1, 2 * 256, 64, "calls=2;roots=0,1", 0},
      {"sendrecv", "float", "none", -1, 1024, 256, "calls=1", 0},
  };
  ASSERT_EQ(r.rows.size(), expected.size() + 1);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const report::ReportRow& row = r.rows[i];
    const ExpectedRow& want = expected[i];
    SCOPED_TRACE(want.op + std::string(" ") + want.dtype);
    EXPECT_EQ(row.op, want.op);
    EXPECT_EQ(row.algo, "nccl");
    EXPECT_EQ(row.ranks, 2);
    EXPECT_EQ(row.dtype, want.dtype);
    EXPECT_EQ(row.redop, want.redop);
    EXPECT_EQ(row.root, want.root);
    EXPECT_EQ(row.bytes, want.bytes);
    EXPECT_EQ(row.count, want.count);
    // Then the calls' arrival figures (arrival_skew_test.cpp), as the figures have them.
    const ArrivalFigures& arrival = r.figures.kinds[i].arrival;
    EXPECT_EQ(row.extra, fmt::format("{};skew_us={:.3f};op_us={:.3f}", want.extra,
                                     arrival.skew_per_call.p50_us, arrival.op_per_call.p50_us));
    EXPECT_EQ(row.wrong_elements, want.wrong_elements);
    EXPECT_EQ(row.status, want.wrong_elements > 0 ? "error" : "ok");
    EXPECT_EQ(row.config, "replay=mixed_job;comm=0;comm_ranks=0,1;nccl_algo=Ring");
    EXPECT_EQ(row.timestamp, kTimestamp);
    EXPECT_EQ(row.origin.host, "node1");
    EXPECT_EQ(row.iters, 30);
    EXPECT_EQ(row.warmup, 5);
  }
  EXPECT_EQ(r.rows[0].reason,
            "--check: 5 elements of its all_reduce calls differ from the expected values");
}

TEST(ReplayRows, ARowsTimesAreItsCallsTimePerCallWithTheInterval) {
  const Replayed r = replayed();
  for (std::size_t i = 0; i < r.figures.kinds.size(); ++i) {
    const OpKindFigures& kind = r.figures.kinds[i];
    const report::ReportRow& row = r.rows[i];
    EXPECT_DOUBLE_EQ(row.time.p50_us, kind.time_per_call.p50_us);
    EXPECT_DOUBLE_EQ(row.time.p50_lo_us, kind.time_per_call.p50_lo_us);
    EXPECT_DOUBLE_EQ(row.time.mean_hi_us, kind.time_per_call.mean_hi_us);
    EXPECT_EQ(row.time.samples, 30);
    EXPECT_TRUE(row.has_interval()) << row.op;
    EXPECT_DOUBLE_EQ(row.busbw_gbps, kind.busbw_gbps);
    EXPECT_DOUBLE_EQ(row.algbw_gbps, kind.algbw_gbps);
    // busbw at the interval's ends brackets the median's.
    EXPECT_LE(row.busbw_gbps_lo, row.busbw_gbps);
    EXPECT_GE(row.busbw_gbps_hi, row.busbw_gbps);
  }
  // The two float all_reduces: rank 1's 11 and 21 us per iteration, 16 per call.
  EXPECT_NEAR(r.rows[0].time.p50_us, 16, 16 * 5e-3);
  // all_reduce of 2 x 1024 floats on 2 ranks in 32 us: 8192 B, x 2 (n-1)/n on the bus.
  EXPECT_NEAR(r.rows[0].busbw_gbps, 8192 / 32e-6 / 1e9, 8192 / 32e-6 / 1e9 * 5e-3);
}

TEST(ReplayRows, TheWindowRowIsTheSlowestRanksWithItsConcurrency) {
  const Replayed r = replayed();
  const report::ReportRow& window = r.rows.back();
  EXPECT_EQ(window.op, report::kReplayWindowOp);
  EXPECT_EQ(window.ranks, 2);
  EXPECT_EQ(window.dtype, "uint8");
  EXPECT_EQ(window.bytes, 8192u + 4096 + 28 + 512 + 1024);
  EXPECT_EQ(window.count, window.bytes);
  EXPECT_EQ(window.root, -1);
  EXPECT_EQ(window.config, "replay=mixed_job;nccl_algo=Ring");
  EXPECT_DOUBLE_EQ(window.time.p50_us, r.figures.window.p50_us);
  EXPECT_EQ(window.wrong_elements, 5u);
  EXPECT_EQ(window.status, "error");
  // Seven calls. Rank 1, back to back: 11 + 21 + ... + 71 = 287 us of ops, all busy, 289 of window
  // with the per-op events, 267 plain (the row's time).
  EXPECT_EQ(window.extra.rfind("calls=7;slowest_rank=1;rank_window_us=", 0), 0u) << window.extra;
  EXPECT_NEAR(window.time.p50_us, 267, 267 * 5e-3);
  EXPECT_NEAR(r.figures.window_timing_ops.p50_us, 289, 289 * 5e-3);
  EXPECT_NE(window.extra.find(";window_timing_ops_us=2"), std::string::npos) << window.extra;
  EXPECT_NE(window.extra.find(";concurrent_us=0.000"), std::string::npos) << window.extra;
  EXPECT_NEAR(r.figures.ranks[1].op_time_sum.p50_us, 287, 287 * 5e-3);
}

TEST(ReplayRows, GapsAndNcclDefaultsInTheConfig) {
  ReplayRunInfo info = run_info();
  info.nccl_config.clear();
  info.gaps = true;
  const Replayed r = replayed(info);
  EXPECT_EQ(r.rows.front().config, "replay=mixed_job;comm=0;comm_ranks=0,1;gaps=1");
  EXPECT_EQ(r.rows.back().config, "replay=mixed_job;gaps=1");
}

// Op times from events (no kernel trace here) are said in every row's config, so that compare
// does not pair them with kernel-timed rows.
TEST(ReplayRows, EventTimedOpsSayItInTheConfig) {
  ReplayRunInfo info = run_info();
  info.nccl_config.clear();
  info.no_kernel_trace = "cuptiSubscribe: CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED";
  const Replayed r = replayed(info);
  EXPECT_EQ(r.rows.front().config, "replay=mixed_job;comm=0;comm_ranks=0,1;op_times=events");
  EXPECT_EQ(r.rows.back().config, "replay=mixed_job;op_times=events");
}

TEST(ReplayRows, EveryRowReadsBackThroughTheSchema) {
  const Replayed r = replayed();
  TempFile file("replay.csv");
  {
    report::CsvWriter writer(file.path());
    for (const report::ReportRow& row : r.rows) writer.write(row);
  }
  const report::Report back = report::read_report(file.path());
  ASSERT_EQ(back.rows.size(), r.rows.size());
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    EXPECT_EQ(report::format_row(back.rows[i].row), report::format_row(r.rows[i]));
  }
}

TEST(ReplayRows, RankListsKeepRunsShort) {
  EXPECT_EQ(rank_list_text({}), "");
  EXPECT_EQ(rank_list_text({0, 2}), "0,2");
  EXPECT_EQ(rank_list_text({0, 1, 2, 3}), "0-3");
  EXPECT_EQ(rank_list_text({0, 8, 16, 24}), "0-24/8");
  EXPECT_EQ(rank_list_text({5, 0, 1, 2, 9}), "5,0-2,9");
  EXPECT_EQ(rank_list_text({3, 2, 1}), "3,2,1");
}

TEST(ReplayRows, TheWorkloadIsNamedByItsFile) {
  EXPECT_EQ(workload_name({"runs/job.jsonl"}), "job");
  EXPECT_EQ(workload_name({"logs/nccl.1.log", "logs/nccl.2.log", "logs/nccl.3.log"}),
            "nccl.1.log+2");
  EXPECT_EQ(workload_name({"a;b=c.jsonl"}), "a|b|c");
  EXPECT_EQ(workload_name({".jsonl"}), ".jsonl");
}

}  // namespace
}  // namespace collbench::replay::testing
