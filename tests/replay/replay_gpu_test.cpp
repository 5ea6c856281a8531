// collbench_replay run on GPUs (label gpu; skipped, saying why, without enough GPUs): every
// committed fixture job from each of its three sources, rescaled to the visible GPU count where
// fewer than its ranks are visible (a job that cannot be rescaled is skipped, saying why), with
// checked values and no mismatch; one fixture under two NCCL protocols, checked, with report rows
// for both; the ops' times from the kernel trace, inside the window and within what events around
// them make them; a rank made late by a recorded gap showing as arrival skew, not as the op's own
// time; buffers registered locally; the all_reduce ops on hand-built algorithms (--algo), checked,
// and a combination that cannot run skipped; recorded waits and gaps held on the GPU; a corrupted
// output caught and named; a rank that never issues its op timing out with that op named; a
// workload of more ranks than GPUs refused as bad input.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>

#include "algorithms/algorithm_registry.hpp"
#include "check/workload_check.hpp"
#include "cli/replay_program.hpp"
#include "fill_check.hpp"
#include "gpu_test_support.hpp"
#include "job_expectations.hpp"
#include "report/replay_text.hpp"
#include "reports/csv_reader.hpp"
#include "rescale/rescale_workload.hpp"
#include "run/replay_session.hpp"
#include "workload_builders.hpp"
#include "workload_files.hpp"

namespace collbench::replay::testing {
namespace {

struct Replayed {
  std::vector<RankResults> results;
  ReplayFigures figures;
};

// Replays `workload` on GPUs 0..world_size-1 in this process, its ops timed by the kernel trace
// where the process has one (else by events, as the command line does).
Replayed replay(const WorkloadOps& workload, ReplaySettings settings,
                const ReplayHooks* hooks = nullptr,
                const KernelTrace* trace = KernelTrace::shared()) {
  Runner::RankSet set(workload.world_size());
  ReplaySession session(set, workload, settings, false, trace, hooks);
  session.prepare();
  session.warm_up();
  session.time();
  session.check();
  Replayed replayed;
  replayed.results = session.gather_results();
  replayed.figures = replay_figures(workload, replayed.results);
  return replayed;
}

ReplaySettings checked(int iters = 3) {
  ReplaySettings settings;
  settings.warmup = 1;
  settings.iters = iters;
  settings.check = true;
  settings.timeout_s = 60;
  return settings;
}

// ------------------------------------------------------------------ the fixtures

struct FixtureCase {
  std::string job;
  SourceKind source;
};

// Every job folder (one holding job.json) of every machine's fixtures, from each source; one case
// without a job when the folder is missing, which fails saying so.
std::vector<FixtureCase> fixture_cases() {
  if (!std::filesystem::is_directory(fixture_dir())) return {{"", SourceKind::nccl_log}};
  std::vector<std::string> jobs;  // "h100x2/ddp"
  for (const std::string& machine : fixture_machines()) {
    for (const auto& entry : std::filesystem::directory_iterator(fixture_dir() + "/" + machine)) {
      if (std::filesystem::exists(entry.path() / "job.json"))
        jobs.push_back(machine + "/" + entry.path().filename().string());
    }
  }
  std::sort(jobs.begin(), jobs.end());
  std::vector<FixtureCase> cases;
  for (const std::string& job : jobs) {
    for (SourceKind source :
         {SourceKind::nccl_log, SourceKind::kineto, SourceKind::flight_recorder})
      cases.push_back({job, source});
  }
  return cases;
}

void PrintTo(const FixtureCase& fixture, std::ostream* out) {
  *out << fixture.job << " from its " << name_of(fixture.source) << " files";
}

class ReplayFixture : public ::testing::TestWithParam<FixtureCase> {};

// The fixture job imported from `source` into `dir`, and rescaled to the visible GPUs where fewer
// than its ranks are visible; "" with `refused` saying why when it cannot be rescaled, or when
// the importer refuses the source as it should (Flight Recorder's uneven all_to_all:
// import_fixtures_test). Any other refusal throws, failing the test.
std::string fixture_workload(const FixtureJob& job, SourceKind source, const TempDir& dir,
                             std::string& refused) {
  if (source == SourceKind::flight_recorder && sends_other_than_it_receives(job)) {
    refused = "its Flight Recorder dump has an uneven all_to_all without its splits";
    return "";
  }
  const std::string recorded = dir.path() + "/recorded.jsonl";
  import_to(recorded, source, fixture_files(job, source));
  check_workload(recorded);
  const int gpus = visible_gpu_count();
  if (gpus >= job.world_size) return recorded;
  const std::string rescaled = dir.path() + "/rescaled.jsonl";
  refused = usage_error_of([&] {
    std::ofstream out(rescaled);
    WorkloadWriter writer(out, rescaled);
    rescale_workload(recorded, gpus, writer);
    writer.finish();
  });
  if (!refused.empty()) return "";
  check_workload(rescaled);
  return rescaled;
}

TEST_P(ReplayFixture, ReplaysWithCheckedValuesAndNoMismatch) {
  ASSERT_FALSE(GetParam().job.empty()) << "no fixtures at " << fixture_dir();
  SKIP_WITHOUT_GPUS(2);
  const FixtureJob job = load_fixture_job(GetParam().job);
  TempDir dir;
  std::string refused;
  const std::string workload = fixture_workload(job, GetParam().source, dir, refused);
  if (workload.empty())
    GTEST_SKIP() << job.name << " cannot be imported from these files or rescaled to the "
                 << visible_gpu_count() << " GPUs: " << refused;
  const WorkloadOps ops = read_workload_ops(workload);
  const Replayed replayed = replay(ops, checked());
  EXPECT_TRUE(mismatch_lines(ops, replayed.figures).empty())
      << mismatch_lines(ops, replayed.figures).front();
  for (std::size_t rank = 0; rank < ops.by_rank.size(); ++rank) {
    for (std::size_t ordinal = 0; ordinal < ops.by_rank[rank].size(); ++ordinal) {
      const OpFigures& op = replayed.figures.ops[rank][ordinal];
      EXPECT_GT(op.time.p50_us, 0) << describe_op(ops, ops.by_rank[rank][ordinal]);
      EXPECT_LE(op.time.p50_us, replayed.figures.ranks[rank].window_timing_ops.max_us);
      // A communicator of one rank (a data-parallel group rescaled to one replica) moves nothing
      // between GPUs: its bus bandwidth is 0, as nccl-tests reports for one rank.
      const WorkloadOp& recorded = ops.by_rank[rank][ordinal];
      if (op.bytes > 0 && ops.comm_size(recorded) > 1) {
        EXPECT_GT(op.busbw_gbps, 0) << describe_op(ops, recorded);
      }
    }
  }
  EXPECT_GT(replayed.figures.window.p50_us, 0);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, ReplayFixture, ::testing::ValuesIn(fixture_cases()),
                         [](const ::testing::TestParamInfo<FixtureCase>& info) {
                           std::string source(name_of(info.param.source));
                           source.erase(std::remove(source.begin(), source.end(), '-'),
                                        source.end());
                           std::string job = info.param.job.empty() ? "missing" : info.param.job;
                           std::replace(job.begin(), job.end(), '/', '_');  // "h100x2_ddp"
                           return job + "_" + source;
                         });

// ------------------------------------------------------------------ swept settings

// `args` after "collbench_replay" through the binary's frame; the exit status.
int run_replay(std::vector<std::string> args) {
  args.insert(args.begin(), "collbench_replay");
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  ReplayProgram program;
  return run_program(static_cast<int>(argv.size()), argv.data(), program);
}

// The ddp job (Kineto: recorded start and end too) replayed under LL and then Simple, checked:
// no mismatch in either, each combination's rows named by its protocol (a row per communicator
// and op, then the window's), and the summary's choice among the two.
TEST(ReplayGpu, TwoProtocolsReplayAFixtureCheckedWithRowsForBoth) {
  SKIP_WITHOUT_GPUS(2);
  const FixtureJob job = load_fixture_job("ddp");
  TempDir dir;
  std::string refused;
  const std::string workload = fixture_workload(job, SourceKind::kineto, dir, refused);
  ASSERT_FALSE(workload.empty()) << refused;
  const std::string csv = dir.path() + "/rows.csv", json_path = dir.path() + "/run.json";
  ASSERT_EQ(run_replay({"run", workload, "--launcher", "single", "-w", "2", "-n", "8", "--check",
                        "--nccl-proto", "LL,Simple", "--csv", csv, "--json", json_path}),
            kExitOk);
  const nlohmann::json document = nlohmann::json::parse(read_whole_file(json_path));
  ASSERT_EQ(document["combinations"].size(), 2u);
  const std::size_t kinds = document["combinations"][0]["communicator_ops"].size();
  ASSERT_GT(kinds, 0u);
  const report::Report report = report::read_report(csv);
  for (const std::string proto : {"nccl_proto=LL", "nccl_proto=Simple"}) {
    std::size_t rows = 0;
    for (const report::ReportLine& line : report.rows) {
      const report::ReportRow& row = line.row;
      const std::string config = row.config + ";";
      if (config.find(proto + ";") == std::string::npos) continue;
      ++rows;
      EXPECT_EQ(row.status, "ok") << row.op << " " << row.config << ": " << row.reason;
      EXPECT_EQ(row.wrong_elements, 0u) << row.op << " " << row.config;
      EXPECT_GT(row.time.p50_us, 0) << row.op << " " << row.config;
      if (row.op != "replay_window") {
        EXPECT_NE(row.extra.find(";skew_us="), std::string::npos) << row.extra;
      }
    }
    EXPECT_EQ(rows, kinds + 1) << proto;
  }
  const nlohmann::json& window = document["summary"]["window"];
  EXPECT_TRUE(window["fastest"] == "nccl_proto=LL" || window["fastest"] == "nccl_proto=Simple")
      << window.dump();
  EXPECT_EQ(document["summary"]["communicator_ops"].size(), kinds);
}

// ------------------------------------------------------------------ built workloads

// `communicators` communicators, each of every rank.
WorkloadOps built(int world, std::vector<WorkloadOp> ops, int communicators = 1) {
  TempFile file("built.jsonl");
  std::vector<int> all;
  for (int rank = 0; rank < world; ++rank) all.push_back(rank);
  std::vector<Communicator> table;
  for (int id = 0; id < communicators; ++id) table.push_back({id, all, {"world"}});
  write_workload(file.path(), synthetic_header(world), table, std::move(ops));
  check_workload(file.path());
  return read_workload_ops(file.path());
}

// On each of 2 ranks: stream 0 an all_reduce of 64 MiB, then 3 ms idle, then a small one; stream 1
// an all_gather that waits (a recorded wait) for the large all_reduce.
std::vector<WorkloadOp> waits_and_gaps() {
  std::vector<WorkloadOp> ops;
  for (int rank = 0; rank < 2; ++rank) {
    ops.push_back(timed(collective_op(rank, 0, 0, ReplayOp::all_reduce, 16u << 20, 0), 0, 1000));
    WorkloadOp gather = timed(collective_op(rank, 0, 1, ReplayOp::all_gather, 1024, 1), 1000, 1010);
    gather.after = {0};
    ops.push_back(gather);
    ops.push_back(timed(collective_op(rank, 0, 2, ReplayOp::all_reduce, 1024, 0), 4010, 4020));
  }
  return ops;
}

// Issued op by op and as one captured CUDA graph per rank (--issue graph) alike.
TEST(ReplayGpu, RecordedWaitsAndGapsHoldOnTheGpu) {
  SKIP_WITHOUT_GPUS(2);
  const WorkloadOps ops = built(2, waits_and_gaps());
  for (const bool graph : {false, true}) {
    ReplaySettings settings = checked(3);
    settings.gaps = true;
    settings.combination.graph = graph;
    const Replayed replayed = replay(ops, settings);
    EXPECT_TRUE(mismatch_lines(ops, replayed.figures).empty()) << "graph " << graph;
    for (const RankResults& rank : replayed.results) {
      ASSERT_EQ(rank.iterations.size(), 3u);
      for (std::size_t i = 0; i < rank.iterations.size(); ++i) {
        const std::vector<OpInterval>& iteration = rank.iterations[i];
        // Every op inside its iteration's window (graph: the external event nodes time it).
        for (const OpInterval& op : iteration) {
          EXPECT_GE(op.start_us, 0) << "graph " << graph;
          EXPECT_LE(op.end_us, rank.window_us[i]) << "graph " << graph;
        }
        // The same iteration issued plain (no per-op events) keeps the recorded gap.
        ASSERT_EQ(rank.plain_window_us.size(), rank.iterations.size());
        EXPECT_GE(rank.plain_window_us[i], 3000.0) << "graph " << graph;
        // The all_gather on stream 1 started only once the all_reduce it waits for had ended.
        EXPECT_GE(iteration[1].start_us, iteration[0].end_us) << "graph " << graph;
        // Stream 0 stayed idle for the 3010 us recorded between its two ops (1000 to 4010 us).
        EXPECT_GE(iteration[2].start_us - iteration[0].end_us, 3000.0) << "graph " << graph;
        EXPECT_GT(iteration[0].duration_us(), 0) << "graph " << graph;
      }
    }
  }
}

// Plain iterations keep the recorded waits: on each rank, stream 1 starts its all_reduce (comm 1)
// after a 3 ms recorded gap; stream 0's two large all_reduces (comm 0) wait for it. Kept, the
// plain window holds the gap and both of them; dropped, they would run during the gap.
TEST(ReplayGpu, PlainIterationsKeepTheRecordedWaits) {
  SKIP_WITHOUT_GPUS(2);
  std::vector<WorkloadOp> ops;
  for (int rank = 0; rank < 2; ++rank) {
    ops.push_back(timed(collective_op(rank, 0, 0, ReplayOp::all_reduce, 1024, 0), 0, 10));
    ops.push_back(timed(collective_op(rank, 1, 0, ReplayOp::all_reduce, 1024, 1), 3000, 3010));
    WorkloadOp waiting =
        timed(collective_op(rank, 0, 1, ReplayOp::all_reduce, 16u << 20, 0), 10, 20);
    waiting.after = {1};
    ops.push_back(waiting);
    ops.push_back(timed(collective_op(rank, 0, 2, ReplayOp::all_reduce, 16u << 20, 0), 20, 30));
  }
  const WorkloadOps workload = built(2, ops, 2);
  for (const bool graph : {false, true}) {
    ReplaySettings settings = checked(3);
    settings.gaps = true;
    settings.combination.graph = graph;
    const Replayed replayed = replay(workload, settings);
    for (const RankResults& rank : replayed.results) {
      ASSERT_EQ(rank.plain_window_us.size(), 3u);
      for (std::size_t i = 0; i < 3; ++i) {
        const std::vector<OpInterval>& timed_ops = rank.iterations[i];
        const double after_gap_us = timed_ops[2].duration_us() + timed_ops[3].duration_us();
        EXPECT_GE(rank.plain_window_us[i], 3000.0 + 0.8 * after_gap_us)
            << "graph " << graph << ", iteration " << i;
      }
    }
  }
}

// A fixture with grouped sends and receives on pair communicators (the pipeline), its iteration
// captured into a CUDA graph with the hand-built all-reduces and without: checked, timed.
TEST(ReplayGpu, AGraphOfEachRanksIterationReplaysCheckedWithRows) {
  SKIP_WITHOUT_GPUS(2);
  const FixtureJob job = load_fixture_job("h100x2/pipeline");
  TempDir dir;
  std::string refused;
  const std::string workload = fixture_workload(job, SourceKind::nccl_log, dir, refused);
  ASSERT_FALSE(workload.empty()) << refused;
  const std::string csv = dir.path() + "/rows.csv";
  ASSERT_EQ(run_replay({"run", workload, "--launcher", "single", "-w", "1", "-n", "4", "--check",
                        "--issue", "direct,graph", "--algo", "nccl,oneshot", "--csv", csv}),
            kExitOk);
  std::map<std::string, std::size_t> windows;
  for (const report::ReportLine& line : report::read_report(csv).rows) {
    const report::ReportRow& row = line.row;
    EXPECT_EQ(row.status, "ok") << row.op << " " << row.config << ": " << row.reason;
    EXPECT_EQ(row.wrong_elements, 0u) << row.op << " " << row.config;
    EXPECT_GT(row.time.p50_us, 0) << row.op << " " << row.config;
    if (row.op == "replay_window") ++windows[row.config];
  }
  EXPECT_EQ(windows.size(), 4u);  // direct and graph, each with NCCL's all-reduce and oneshot
}

// Rank 0 issues communicator 0's all_reduce (stream 0), then communicator 1's (stream 1); rank 1
// the other way round. No deadlock on the GPU (the check accepts it), but NCCL connects each
// communicator at its first op and blocks the issuing thread until its peers connect too: issued
// in these orders, each rank's thread would wait on the other's. Connected one communicator at a
// time first, the replay finishes.
TEST(ReplayGpu, RanksReachingCommunicatorsInOppositeOrdersFinish) {
  SKIP_WITHOUT_GPUS(2);
  const std::vector<WorkloadOp> ops = {
      collective_op(0, 0, 0, ReplayOp::all_reduce, 1u << 20, 0),
      collective_op(0, 1, 0, ReplayOp::all_reduce, 1u << 20, 1),
      collective_op(1, 1, 0, ReplayOp::all_reduce, 1u << 20, 0),
      collective_op(1, 0, 0, ReplayOp::all_reduce, 1u << 20, 1),
  };
  const WorkloadOps workload = built(2, ops, 2);
  const Replayed replayed = replay(workload, checked());
  EXPECT_TRUE(mismatch_lines(workload, replayed.figures).empty());
}

// Two all_reduces on each of 2 ranks; rank 1 recorded 1000 us idle before its second (rank 0: 10
// us), kept by --gaps as a delay on its stream: rank 0 arrives about 990 us earlier and waits.
TEST(ReplayGpu, ALateRankShowsAsSkewNotAsTheOpsOwnTime) {
  SKIP_WITHOUT_GPUS(2);
  std::vector<WorkloadOp> ops;
  for (int rank = 0; rank < 2; ++rank) {
    const double second_start = rank == 0 ? 20 : 1010;
    ops.push_back(timed(collective_op(rank, 0, 0, ReplayOp::all_reduce, 1024, 0), 0, 10));
    ops.push_back(timed(collective_op(rank, 0, 1, ReplayOp::all_reduce, 1024, 0), second_start,
                        second_start + (rank == 0 ? 1010 : 10)));
  }
  const WorkloadOps workload = built(2, ops);
  ReplaySettings settings = checked(8);
  settings.gaps = true;
  const Replayed replayed = replay(workload, settings);
  EXPECT_TRUE(mismatch_lines(workload, replayed.figures).empty());
  ASSERT_EQ(replayed.figures.kinds.size(), 1u);
  const OpKindFigures& row = replayed.figures.kinds[0];
  // Per call, the mean of the two calls: about (0 + 990) / 2 late, the waiting not in op us.
  EXPECT_GE(row.arrival.skew_per_call.p50_us, 400) << row.arrival.skew_per_call.p50_us;
  EXPECT_LT(row.arrival.op_per_call.p50_us, 0.5 * row.time_per_call.p50_us)
      << row.arrival.op_per_call.p50_us << " of " << row.time_per_call.p50_us;
  EXPECT_DOUBLE_EQ(*row.arrival.recorded_skew_us, 495);
  EXPECT_DOUBLE_EQ(*row.arrival.recorded_op_us, 10);
}

// Twelve small all_reduces and one of 16 MiB on one stream of 2 ranks, directly and as a graph,
// their times from the kernel trace: each op lies inside its iteration's window, after the op
// before it on the stream; and, issued directly, they sum to less than CUDA events around each
// step make them, which hold the host's time to launch each op as well.
TEST(ReplayGpu, TracedOpTimesAreTheKernelsInsideTheWindow) {
  SKIP_WITHOUT_GPUS(2);
  std::string why_not;
  const KernelTrace* trace = KernelTrace::shared(&why_not);
  if (!trace) GTEST_SKIP() << "no kernel trace here: " << why_not;
  std::vector<WorkloadOp> ops;
  for (int rank = 0; rank < 2; ++rank) {
    for (int seq = 0; seq < 13; ++seq) {
      ops.push_back(collective_op(rank, 0, seq, ReplayOp::all_reduce, seq == 6 ? 4u << 20 : 256));
    }
  }
  const WorkloadOps workload = built(2, ops);
  const auto op_sum_us = [](const Replayed& replayed) {
    double sum_us = 0;
    for (const OpFigures& op : replayed.figures.ops[0]) sum_us += op.time.p50_us;
    return sum_us;
  };
  for (const bool graph : {false, true}) {
    ReplaySettings settings = checked(6);
    settings.combination.graph = graph;
    const Replayed traced = replay(workload, settings, nullptr, trace);
    EXPECT_TRUE(mismatch_lines(workload, traced.figures).empty()) << "graph " << graph;
    for (std::size_t rank = 0; rank < 2; ++rank) {
      const RankResults& results = traced.results[rank];
      ASSERT_EQ(results.iterations.size(), 6u);
      for (std::size_t i = 0; i < results.iterations.size(); ++i) {
        double ended_us = 0;
        for (const OpInterval& op : results.iterations[i]) {
          EXPECT_GT(op.duration_us(), 0) << "graph " << graph << " rank " << rank << " it " << i;
          EXPECT_GE(op.start_us, ended_us - 0.01) << "graph " << graph << " rank " << rank;
          ended_us = op.end_us;
        }
        EXPECT_LE(ended_us, results.window_us[i] + 1) << "graph " << graph << " rank " << rank;
      }
    }
    if (graph) continue;
    const Replayed by_events = replay(workload, settings, nullptr, nullptr);
    EXPECT_LT(op_sum_us(traced), op_sum_us(by_events));
  }
}

// A stream's buffers registered (ncclCommRegister) with each of the two communicators whose ops
// use them, a send/recv pair after the collectives: checked, no mismatch.
TEST(ReplayGpu, LocallyRegisteredBuffersReplayChecked) {
  SKIP_WITHOUT_GPUS(2);
  std::vector<WorkloadOp> ops;
  for (int rank = 0; rank < 2; ++rank) {
    ops.push_back(collective_op(rank, 0, 0, ReplayOp::all_reduce, 1u << 18, 0));
    ops.push_back(collective_op(rank, 1, 0, ReplayOp::all_gather, 1u << 16, 0));
    ops.push_back(
        p2p_op(rank, 1, rank == 0 ? ReplayOp::send : ReplayOp::recv, 1 - rank, 0, 1u << 16, 0));
  }
  const WorkloadOps workload = built(2, ops, 2);
  ReplaySettings settings = checked();
  settings.combination.registration = BufferRegistration::local;
  const Replayed replayed = replay(workload, settings);
  EXPECT_TRUE(mismatch_lines(workload, replayed.figures).empty())
      << mismatch_lines(workload, replayed.figures).front();
}

// ------------------------------------------------------------------ hand-built all-reduces

AlgorithmChoice all_reduce_algo(const std::string& text) {
  AlgorithmChoice choice = resolve_algorithm(text);
  choice.entry = find_algorithm(choice.name(), OpKind::all_reduce);
  return choice;
}

// On each of 2 ranks: all_reduce float (1 MiB) on communicator 0, an all_gather, a grouped
// send/recv and an all_reduce bfloat16 (4096) on communicator 1, then an all_reduce float max on
// communicator 0: the hand-built ones among NCCL's, on two communicators of one stream.
std::vector<WorkloadOp> all_reduces_among_others() {
  std::vector<WorkloadOp> ops;
  for (int rank = 0; rank < 2; ++rank) {
    ops.push_back(collective_op(rank, 0, 0, ReplayOp::all_reduce, 1u << 18, 0));
    ops.push_back(collective_op(rank, 1, 0, ReplayOp::all_gather, 1u << 12, 0));
    WorkloadOp send = p2p_op(rank, 1, ReplayOp::send, 1 - rank, 0, 1u << 10, 0);
    WorkloadOp recv = p2p_op(rank, 1, ReplayOp::recv, 1 - rank, 0, 1u << 10, 0);
    send.group = recv.group = 7;
    ops.push_back(send);
    ops.push_back(recv);
    WorkloadOp small = collective_op(rank, 1, 1, ReplayOp::all_reduce, 1u << 12, 0);
    small.dtype = DataType::bfloat16;
    ops.push_back(small);
    WorkloadOp largest = collective_op(rank, 0, 1, ReplayOp::all_reduce, 3000, 0);
    largest.redop = ReduceOp::max;
    ops.push_back(largest);
  }
  return ops;
}

TEST(ReplayGpu, HandbuiltAllReducesReplayCheckedAmongNcclsOps) {
  SKIP_WITHOUT_GPUS(2);
  const WorkloadOps workload = built(2, all_reduces_among_others(), 2);
  for (const std::string& algo : algorithm_names(OpKind::all_reduce)) {
    // Launched op by op, and captured into each rank's graph (the checked iteration too).
    for (const bool graph : {false, true}) {
      const std::string what = fmt::format("{}, graph {}", algo, graph);
      ReplaySettings settings = checked();
      settings.combination.all_reduce = all_reduce_algo(algo);
      settings.combination.graph = graph;
      const Replayed replayed = replay(workload, settings);
      const std::vector<std::string> wrong = mismatch_lines(workload, replayed.figures);
      EXPECT_TRUE(wrong.empty()) << what << ": " << wrong.front();
      for (const RankResults& rank : replayed.results) {
        ASSERT_EQ(rank.iterations.size(), 3u) << what;
        for (const OpInterval& op : rank.iterations.back())
          EXPECT_GT(op.end_us, op.start_us) << what;
      }
    }
  }
}

// An all_reduce a rank issues inside an NCCL group (here with a send/recv pair) stays NCCL's
// under --algo, checked; a workload whose every all_reduce is grouped skips the hand-built
// combination, saying so.
TEST(ReplayGpu, GroupedAllReducesStayOnNccl) {
  SKIP_WITHOUT_GPUS(2);
  std::vector<WorkloadOp> ops;
  for (int rank = 0; rank < 2; ++rank) {
    const int peer = 1 - rank;
    ops.push_back(in_group(collective_op(rank, 0, 0, ReplayOp::all_reduce, 1u << 16), 0));
    ops.push_back(in_group(p2p_op(rank, 0, ReplayOp::send, peer, 0), 0));
    ops.push_back(in_group(p2p_op(rank, 0, ReplayOp::recv, peer, 0), 0));
    ops.push_back(collective_op(rank, 0, 1, ReplayOp::all_reduce, 1u << 16));
  }
  const WorkloadOps workload = built(2, ops);
  for (const std::string& algo : algorithm_names(OpKind::all_reduce)) {
    if (algo == "nccl") continue;
    ReplaySettings settings = checked();
    settings.combination.all_reduce = all_reduce_algo(algo);
    Runner::RankSet set(workload.world_size());
    ReplaySession session(set, workload, settings, false, KernelTrace::shared());
    session.prepare();
    EXPECT_NE(session.kept_note().find("1 all_reduce op(s) issued inside an NCCL group"),
              std::string::npos)
        << algo << ": " << session.kept_note();
    EXPECT_EQ(session.handbuilt_instances(), 1u) << algo;  // the ungrouped one only
    session.warm_up();
    session.time();
    session.check();
    const ReplayFigures figures = replay_figures(workload, session.gather_results());
    const std::vector<std::string> wrong = mismatch_lines(workload, figures);
    EXPECT_TRUE(wrong.empty()) << algo << ": " << wrong.front();
  }
  std::vector<WorkloadOp> grouped_only;
  for (const WorkloadOp& op : ops) {
    if (op.group) grouped_only.push_back(op);
  }
  const WorkloadOps all_grouped = built(2, grouped_only);
  ReplaySettings settings = checked();
  settings.combination.all_reduce = all_reduce_algo("oneshot");
  Runner::RankSet set(all_grouped.world_size());
  ReplaySession session(set, all_grouped, settings, false, KernelTrace::shared());
  try {
    session.prepare();
    ADD_FAILURE() << "a workload without an ungrouped all_reduce ran on oneshot";
  } catch (const UnsupportedCombination& refused) {
    EXPECT_NE(std::string(refused.what()).find("0 on a communicator of one rank, 1 inside"),
              std::string::npos)
        << refused.what();
  }
}

// A fixture through the command line under NCCL's all-reduce and two hand-built ones: rows for
// each, checked; a hand-built peer kernel on NCCL-registered buffers is skipped saying why, and
// asked for alone it is bad input.
TEST(ReplayGpu, AlgoCombinationsReplayAFixtureAndSkipWhatCannotRun) {
  SKIP_WITHOUT_GPUS(2);
  const FixtureJob job = load_fixture_job("ddp");
  TempDir dir;
  std::string refused;
  const std::string workload = fixture_workload(job, SourceKind::nccl_log, dir, refused);
  ASSERT_FALSE(workload.empty()) << refused;
  const std::string csv = dir.path() + "/rows.csv";
  ASSERT_EQ(run_replay({"run", workload, "--launcher", "single", "-w", "1", "-n", "4", "--check",
                        "--algo", "nccl,ring_sendrecv,oneshot", "--register", "none,local", "--csv",
                        csv}),
            kExitOk);
  const report::Report report = report::read_report(csv);
  std::map<std::string, std::size_t> rows_by_combination;
  for (const report::ReportLine& line : report.rows) {
    const report::ReportRow& row = line.row;
    EXPECT_EQ(row.status, "ok") << row.op << " " << row.config << ": " << row.reason;
    EXPECT_EQ(row.wrong_elements, 0u) << row.op << " " << row.config;
    std::string combination = "nccl";
    for (const char* algo : {"algo=ring_sendrecv", "algo=oneshot"}) {
      if ((row.config + ";").find(std::string(algo) + ";") != std::string::npos) combination = algo;
    }
    if (row.config.find("register=local") != std::string::npos) combination += "+local";
    ++rows_by_combination[combination];
  }
  // oneshot maps its peers' memory itself: skipped on registered buffers, run on plain ones.
  EXPECT_EQ(rows_by_combination.count("algo=oneshot+local"), 0u);
  for (const char* ran :
       {"nccl", "algo=ring_sendrecv", "algo=oneshot", "nccl+local", "algo=ring_sendrecv+local"}) {
    EXPECT_GT(rows_by_combination[ran], 1u) << ran;
  }
  EXPECT_EQ(run_replay({"run", workload, "--launcher", "single", "-w", "1", "-n", "2", "--algo",
                        "oneshot", "--register", "local"}),
            kExitUsage);
}

// Corrupts one element of rank 1's output of its op 0 before the check reads it.
class CorruptOneOutput : public ReplayHooks {
 public:
  void after_checked_op(int rank, std::size_t ordinal, void* output, std::uint64_t,
                        const kernels::PatternParams& pattern, cudaStream_t stream) const override {
    if (rank != 1 || ordinal != 0) return;
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(stream, &status) == cudaSuccess)
      captured = status == cudaStreamCaptureStatusActive;
    kernels::launch_corrupt_element(output, 5, pattern, stream);
  }
  // Whether the checked op was being captured into a graph (the last time it was checked).
  mutable std::atomic<bool> captured{false};
};

TEST(ReplayGpu, ACorruptedOutputIsCaughtAndNamed) {
  SKIP_WITHOUT_GPUS(2);
  std::vector<WorkloadOp> ops;
  for (int rank = 0; rank < 2; ++rank) {
    ops.push_back(collective_op(rank, 0, 0, ReplayOp::all_reduce, 4096));
    ops.push_back(collective_op(rank, 0, 1, ReplayOp::all_gather, 4096));
  }
  const WorkloadOps workload = built(2, ops);
  const CorruptOneOutput hooks;
  // Under --issue graph the checked iteration is a graph of its own: the check runs in it.
  for (const bool graph : {false, true}) {
    ReplaySettings settings = checked();
    settings.combination.graph = graph;
    const Replayed replayed = replay(workload, settings, &hooks);
    EXPECT_EQ(hooks.captured.load(), graph);  // the check ran inside the checked graph
    EXPECT_EQ(replayed.figures.ops[1][0].mismatches, 1u) << "graph " << graph;
    EXPECT_EQ(replayed.figures.ops[0][0].mismatches, 0u) << "graph " << graph;
    EXPECT_EQ(replayed.figures.ops[1][1].mismatches, 0u) << "graph " << graph;
    const std::vector<std::string> lines = mismatch_lines(workload, replayed.figures);
    ASSERT_EQ(lines.size(), 1u) << "graph " << graph;
    EXPECT_NE(lines[0].find("rank 1: 1 elements of all_reduce seq 0 on communicator 0 (ranks 0,1) "
                            "(synthetic:1:0)"),
              std::string::npos)
        << lines[0];
  }
}

// Rank 1 never issues its last op (an earlier one would meet rank 0's next on the communicator):
// rank 0 waits inside it until the deadline.
class SkipOneOp : public ReplayHooks {
 public:
  bool skips_op(int rank, std::size_t ordinal) const override { return rank == 1 && ordinal == 2; }
};

TEST(ReplayGpu, ARankThatNeverIssuesItsOpIsATimeoutNamingIt) {
  SKIP_WITHOUT_GPUS(2);
  std::vector<WorkloadOp> ops;
  for (int rank = 0; rank < 2; ++rank) {
    for (int seq = 0; seq < 3; ++seq) ops.push_back(collective_op(rank, 0, seq));
  }
  const WorkloadOps workload = built(2, ops);
  ReplaySettings settings = checked();
  settings.timeout_s = 5;
  const SkipOneOp hooks;
  try {
    replay(workload, settings, &hooks);
    FAIL() << "no timeout";
  } catch (const CaseTimeout& timeout) {
    const std::string what = timeout.what();
    EXPECT_NE(what.find("warm-up iteration 0 did not finish within 5"), std::string::npos) << what;
    EXPECT_NE(what.find("rank 0: all_reduce seq 2 on communicator 0 (ranks 0,1)"),
              std::string::npos)
        << what;
  }
}

TEST(ReplayGpu, AWorkloadOfMoreRanksThanGpusIsBadInput) {
  SKIP_WITHOUT_GPUS(1);
  const int ranks = visible_gpu_count() + 1;
  std::vector<WorkloadOp> ops;
  for (int rank = 0; rank < ranks; ++rank) ops.push_back(collective_op(rank, 0, 0));
  TempFile file("too_many.jsonl");
  std::vector<int> all;
  for (int rank = 0; rank < ranks; ++rank) all.push_back(rank);
  write_workload(file.path(), synthetic_header(ranks), {{0, all, {"world"}}}, ops);
  ::testing::internal::CaptureStderr();
  const int status = run_replay({"run", file.path(), "--launcher", "single"});
  const std::string error = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(status, kExitUsage);
  EXPECT_NE(
      error.find(fmt::format("the workload has {} ranks, {} GPUs are visible", ranks, ranks - 1)),
      std::string::npos)
      << error;
  EXPECT_NE(error.find("collbench_replay rescale"), std::string::npos) << error;
}

}  // namespace
}  // namespace collbench::replay::testing
