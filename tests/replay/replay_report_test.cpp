// The replay's reports from known figures: the CSV's one row per op (a header from the same
// columns, no group or recorded time as empty fields, the source place quoted when it needs it),
// the JSON (which NCCL recorded and which replayed, every op), the console table (arrival skew
// beside the time without waiting) and the lines naming wrong outputs.
#include <gtest/gtest.h>

#include <sstream>

#include "report/op_csv.hpp"
#include "report/replay_json.hpp"
#include "report/replay_text.hpp"
#include "workload_builders.hpp"
#include "workload_files.hpp"

namespace collbench::replay::testing {
namespace {

struct Replayed {
  WorkloadOps workload;
  ReplayFigures figures;
};

// Two ranks, an all_reduce each (rank 1's recorded, rank 0's source place holding a comma), 8
// iterations of 10..17 us.
Replayed replayed() {
  Replayed r;
  r.workload.path = "job.jsonl";
  r.workload.header = synthetic_header(2);
  r.workload.header.nccl_version = "2.21.5";
  r.workload.communicators = CommunicatorTable({{0, {0, 1}, {"world"}}});
  WorkloadOp first = collective_op(0, 0, 0), second = collective_op(1, 0, 0);
  first.where = "trace,0.json:7";
  second.times.start_us = 0;
  second.times.end_us = 20;
  r.workload.by_rank = {{first}, {second}};
  std::vector<RankResults> results(2);
  for (int i = 0; i < 8; ++i) {
    for (RankResults& rank : results) {
      rank.iterations.push_back({{1, 11.0 + i}});
      rank.window_us.push_back(12.0 + i);
      rank.plain_window_us.push_back(12.0 + i);
    }
  }
  results[0].mismatches = {0};
  results[1].mismatches = {3};
  r.figures = replay_figures(r.workload, results);
  return r;
}

// The figures as the one combination of a run at the defaults.
std::vector<CombinationRun> default_run(const ReplayFigures& figures) {
  std::vector<CombinationRun> runs(1);
  runs.front().figures = figures;
  return runs;
}

TEST(ReplayReport, TheCsvHasOneRowPerOpInTheColumnsOrder) {
  const Replayed r = replayed();
  TempFile file("ops.csv");
  {
    OpCsvWriter writer(file.path());
    writer.write({r.workload, r.workload.by_rank[0][0], r.figures.ops[0][0]});
    writer.write({r.workload, r.workload.by_rank[1][0], r.figures.ops[1][0]});
  }
  std::istringstream text(read_whole_file(file.path()));
  std::string header, first, second, extra;
  std::getline(text, header);
  std::getline(text, first);
  std::getline(text, second);
  EXPECT_FALSE(std::getline(text, extra));
  EXPECT_EQ(header.rfind("rank,communicator,seq,op,dtype,count,bytes,stream,group,recorded_us,", 0),
            0u)
      << header;
  // No group and no recorded time: empty fields; the place is quoted for its comma.
  EXPECT_EQ(first.rfind("0,0,0,all_reduce,float,1024,4096,0,,,13.5,10.0,17.0,", 0), 0u) << first;
  EXPECT_NE(first.find(",0,\"trace,0.json:7\""), std::string::npos) << first;
  EXPECT_NE(second.find(",20.0,13.5,"), std::string::npos) << second;
  EXPECT_NE(second.find(",3,synthetic:1:0"), std::string::npos) << second;
}

TEST(ReplayReport, TheJsonNamesBothNcclsAndHoldsEveryOp) {
  const Replayed r = replayed();
  ReplayRunInfo info;
  info.origin.nccl_version = "2.28.9";
  info.iters = 8;
  const nlohmann::json document = replay_json(r.workload, default_run(r.figures), info);
  EXPECT_EQ(document["run"]["nccl_recorded"], "2.21.5");
  EXPECT_EQ(document["run"]["nccl_replayed"], "2.28.9");
  ASSERT_EQ(document["combinations"].size(), 1u);
  const nlohmann::json& only = document["combinations"][0];
  EXPECT_EQ(only["name"], "default");
  EXPECT_EQ(only["config"], "");
  ASSERT_EQ(only["ops"].size(), 2u);
  EXPECT_EQ(only["ops"][1]["mismatches"], 3);
  EXPECT_TRUE(only["ops"][0]["recorded_us"].is_null());
  EXPECT_EQ(only["communicator_ops"][0]["calls"], 1);
  EXPECT_DOUBLE_EQ(only["window"]["p50_us"].get<double>(), 15.5);
  EXPECT_FALSE(only["window"]["p50_lo_us"].is_null());  // 8 samples: a 95% interval
  EXPECT_EQ(document["summary"]["window"]["fastest"], "default");
}

// The console's figures of a gated run.
std::string gated_table(const ReplayFigures& figures) {
  ReplayRunInfo info;
  info.gated = true;
  std::ostringstream out;
  print_replay_figures(figures, info, out);
  return out.str();
}

TEST(ReplayReport, TheTableShowsTheMedianItsIntervalAndNoRatioWithoutARecording) {
  const Replayed r = replayed();
  const std::string text = gated_table(r.figures);
  EXPECT_NE(text.find("all_reduce"), std::string::npos) << text;
  EXPECT_NE(text.find(median_text(r.figures.kinds[0].time_per_call)), std::string::npos) << text;
  EXPECT_EQ(text.find("not start-gated"), std::string::npos) << text;
  // Rank 0's op has no recorded time, so the call has none: '-' for both columns.
  EXPECT_NE(text.find(" - "), std::string::npos) << text;
  TimeStats few;
  few.p50_us = 12.25;
  EXPECT_EQ(median_text(few), "12.2");
}

// How the ops were timed, said under each combination and in the JSON: by their kernels, or by
// events with the reason there is no kernel trace.
TEST(ReplayReport, TheTableAndTheJsonSayHowTheOpsWereTimed) {
  const Replayed r = replayed();
  EXPECT_NE(gated_table(r.figures).find("# op times: each step's kernels on the GPU (CUPTI)"),
            std::string::npos);
  ReplayRunInfo info;
  info.gated = true;
  info.no_kernel_trace = "libcupti.so.13 not found";
  std::ostringstream out;
  print_replay_figures(r.figures, info, out);
  EXPECT_NE(out.str().find("# op times: CUDA events around each step (no kernel trace: "
                           "libcupti.so.13 not found)"),
            std::string::npos)
      << out.str();
  const nlohmann::json events = replay_json(r.workload, default_run(r.figures), info);
  EXPECT_EQ(events["run"]["op_times"], "events");
  EXPECT_EQ(events["run"]["no_kernel_trace"], "libcupti.so.13 not found");
  const nlohmann::json kernels = replay_json(r.workload, default_run(r.figures), ReplayRunInfo{});
  EXPECT_EQ(kernels["run"]["op_times"], "kernels");
  EXPECT_TRUE(kernels["run"]["no_kernel_trace"].is_null());
}

TEST(ReplayReport, TheTableAndTheJsonShowSkewApartFromTheTimeWithoutWaiting) {
  // Both ranks start at 1 us (no skew); the shorter member's time is 10 + i: median 13.5.
  const Replayed r = replayed();
  const std::string text = gated_table(r.figures);
  EXPECT_NE(text.find("skew us"), std::string::npos) << text;
  EXPECT_NE(text.find("      0.0      13.5              -\n"), std::string::npos) << text;
  const nlohmann::json row =
      replay_json(r.workload, default_run(r.figures), {})["combinations"][0]["communicator_ops"][0];
  EXPECT_DOUBLE_EQ(row["arrival_skew_per_call"]["p50_us"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(row["op_time_without_wait_per_call"]["p50_us"].get<double>(), 13.5);
  EXPECT_TRUE(row["recorded_skew_us_per_call"].is_null());  // rank 0's op has no recorded times
}

TEST(ReplayReport, EachWrongOutputIsOneLineNamingRankOpAndPlace) {
  const Replayed r = replayed();
  const std::vector<std::string> lines = mismatch_lines(r.workload, r.figures);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            "rank 1: 3 elements of all_reduce seq 0 on communicator 0 (ranks 0,1) (synthetic:1:0) "
            "differ from the expected values (op 0 of the rank)");
}

}  // namespace
}  // namespace collbench::replay::testing
