// What each importer makes of its source beyond the ops job.json lists: NCCL's log lines
// (INIT, split, settings), recorded reductions against assumed ones (--redop), the groups that
// keep the pipeline's batched ring from deadlocking, recorded times, and Flight Recorder dumps
// whose ring buffers dropped their first entries (the ranks' windows intersected).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "check/ring_windows.hpp"
#include "check/workload_check.hpp"
#include "import/nccl_log_line.hpp"
#include "job_expectations.hpp"
#include "workload_files.hpp"

namespace collbench::replay::testing {
namespace {

bool has_note(const WorkloadHeader& header, const std::string& fragment) {
  for (const std::string& note : header.assumptions) {
    if (note.find(fragment) != std::string::npos) return true;
  }
  return false;
}

LoadedWorkload imported(const std::string& job, SourceKind source,
                        const ImportOptions& options = {}) {
  TempFile file(job + "_" + std::string(name_of(source)) + ".jsonl");
  import_to(file.path(), source, fixture_files(load_fixture_job(job), source), options);
  return load_workload(file.path());
}

TEST(NcclLogLine, ReadsInitSplitOpAndSettingLines) {
  const NcclLogLine init = parse_nccl_log_line(
      "vm:5974:5974 [0] NCCL INFO ncclCommInitRankConfig comm 0x32c5cd00 rank 0 nranks 4 cudaDev 0 "
      "nvmlDev 0 busId 60 commId 0x57256b02ad2efdbe - Init START",
      "l:1");
  ASSERT_EQ(init.kind, NcclLogLine::Kind::init);
  EXPECT_EQ(init.init.comm, "0x32c5cd00");
  EXPECT_EQ(init.init.nranks, 4);
  EXPECT_EQ(init.init.comm_id, "0x57256b02ad2efdbe");
  const NcclLogLine split = parse_nccl_log_line(
      "vm:6150:6150 [0] NCCL INFO ncclCommSplit comm 0x1a4c7a90 rank 1 nranks 2 cudaDev 0 nvmlDev "
      "0 "
      "busId 60 parent 0x1295ec00 splitCount 1 color 0 key 0- Init START",
      "l:2");
  ASSERT_EQ(split.kind, NcclLogLine::Kind::init);
  EXPECT_EQ(split.init.rank, 1);
  EXPECT_EQ(split.init.parent, "0x1295ec00");
  EXPECT_EQ(split.init.color, "0");
  const NcclLogLine op = parse_nccl_log_line(
      "vm:5974:6015 [0] NCCL INFO AllReduce: opCount 0 sendbuff 0x7f550ed40000 recvbuff "
      "0x7f550ed40000 count 1509632 datatype 7 op 0 root 0 comm 0x32c5cd00 [nranks=4] stream "
      "0x39dde410",
      "l:3");
  ASSERT_EQ(op.kind, NcclLogLine::Kind::op);
  EXPECT_EQ(op.op.name, "AllReduce");
  EXPECT_EQ(op.op.count, 1509632u);
  EXPECT_EQ(op.op.nranks, 4);
  EXPECT_EQ(op.op.stream, "0x39dde410");
  EXPECT_EQ(op.thread, "vm:5974:6015");
  const NcclLogLine setting =
      parse_nccl_log_line("h:1:1 [0] NCCL INFO NCCL_NVLS_ENABLE set by environment to 0.", "l:4");
  ASSERT_EQ(setting.kind, NcclLogLine::Kind::setting);
  EXPECT_EQ(setting.setting_value, "0");
  EXPECT_EQ(parse_nccl_log_line("vm:1:1 [0] NCCL INFO Channel 00/24 : 0 1 2 3", "l:5").kind,
            NcclLogLine::Kind::other);
  EXPECT_NE(usage_error_of([] {
              parse_nccl_log_line("h:1:1 [0] NCCL INFO AllReduce: opCount 0 count x datatype 7",
                                  "l:6");
            }).find("l:6: 'count' is 'x', not a number"),
            std::string::npos);
}

// The logs of tp_dp with a line put first, made by `line_for` from the log's own prefix.
std::vector<std::string> logs_with_first_line(TempDir& dir,
                                              std::string (*line_for)(const std::string& prefix)) {
  std::vector<std::string> logs;
  for (const std::string& path : fixture_files(load_fixture_job("tp_dp"), SourceKind::nccl_log)) {
    const std::string text = read_whole_file(path);
    logs.push_back(dir.write(path.substr(path.rfind('/') + 1),
                             line_for(text.substr(0, text.find(' '))) + "\n" + text));
  }
  return logs;
}

TEST(NcclLogImport, SplitCommunicatorsSettingsAndOneProcessPerLog) {
  TempDir dir;
  TempFile file("settings.jsonl");
  import_to(file.path(), SourceKind::nccl_log,
            logs_with_first_line(dir, [](const std::string& prefix) {
              return prefix + " [0] NCCL INFO NCCL_NVLS_ENABLE set by environment to 0.";
            }));
  const LoadedWorkload workload = load_workload(file.path());
  EXPECT_EQ(workload.header.nccl_env.at("NCCL_NVLS_ENABLE"), "0");
  EXPECT_FALSE(has_note(workload.header, "NCCL_* settings: none"));
  ASSERT_EQ(workload.communicators.count(), 5);
  EXPECT_EQ(workload.communicators.at(1).ranks, (std::vector<int>{0, 2}));
  EXPECT_EQ(workload.communicators.at(1).names.front(),
            "commId 0x7a5f767acaf2ab5a / split 1 color 0");
  TempDir other;
  const std::vector<std::string> mixed = logs_with_first_line(other, [](const std::string&) {
    return std::string("otherhost:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda13.0");
  });
  EXPECT_NE(usage_error_of([&] {
              import_to(file.path(), SourceKind::nccl_log, mixed);
            }).find(":4: a line of process 'vm:6150' in the log of 'otherhost:1'"),
            std::string::npos);
}

TEST(NcclLogImport, RecordsReductionsTheOthersAssume) {
  const LoadedWorkload recorded = imported("fsdp", SourceKind::nccl_log);
  for (const WorkloadOp& op : recorded.ops.at(0)) {
    if (op.op == ReplayOp::reduce_scatter) {
      EXPECT_EQ(op.redop, ReduceOp::avg) << op.where;  // FSDP averages: NCCL's op 4
    }
  }
  const LoadedWorkload assumed = imported("fsdp", SourceKind::kineto);
  EXPECT_TRUE(has_note(assumed.header,
                       "reductions: record_param_comms records none; reduce_scatter taken as sum"));
  const LoadedWorkload told =
      imported("fsdp", SourceKind::flight_recorder, ImportOptions{ReduceOp::avg});
  EXPECT_TRUE(has_note(told.header, "reduce_scatter taken as avg (--redop)"));
  for (const WorkloadOp& op : told.ops.at(0)) {
    if (op.op == ReplayOp::reduce_scatter) {
      EXPECT_EQ(op.redop, ReduceOp::avg);
    }
  }
  EXPECT_NE(usage_error_of([] {
              imported("fsdp", SourceKind::nccl_log, ImportOptions{ReduceOp::avg});
            }).find("--redop: NCCL's log records every op's reduction"),
            std::string::npos);
}

TEST(NcclLogImport, GroupsKeepThePipelinesBatchedRingFromDeadlocking) {
  TempFile file("pipeline.jsonl"), ungrouped("pipeline_ungrouped.jsonl");
  import_to(file.path(), SourceKind::nccl_log,
            fixture_files(load_fixture_job("pipeline"), SourceKind::nccl_log));
  EXPECT_NO_THROW(check_workload(file.path()));
  LoadedWorkload workload = load_workload(file.path());
  EXPECT_TRUE(has_note(workload.header, "groups: the log has no ncclGroupStart/End boundaries"));
  std::vector<WorkloadOp> ops;
  for (auto& [rank, rank_ops] : workload.ops) {
    for (WorkloadOp& op : rank_ops) {
      op.group.reset();
      ops.push_back(op);
    }
  }
  write_workload(ungrouped.path(), workload.header, workload.communicators.all(), ops);
  EXPECT_NE(usage_error_of([&] { check_workload(ungrouped.path()); }).find("deadlock: rank"),
            std::string::npos);
}

// The job (job.json) batches only its ring, on the world communicator; its single sends and
// receives go over communicators of two ranks (PyTorch makes one per pair; the NCCL log shows
// them). From the log: rank 0 logs send, send, recv, recv back to back while rank 1 interleaves its
// two neighbours, and grouping those on one side only made NCCL truncate the message on the GPU, so
// only runs both sides group alike stay groups. From Kineto and Flight Recorder, which name only
// the process group: the single ones move to a communicator of their pair.
class PipelineGroups : public ::testing::TestWithParam<SourceKind> {};

TEST_P(PipelineGroups, BatchedOnTheWorldSingleOnTheirPair) {
  TempFile file("pipeline.jsonl");
  import_to(file.path(), GetParam(), fixture_files(load_fixture_job("pipeline"), GetParam()));
  EXPECT_NO_THROW(check_workload(file.path()));
  const LoadedWorkload workload = load_workload(file.path());
  int grouped = 0;
  int single = 0;
  for (const auto& [rank, rank_ops] : workload.ops) {
    for (const WorkloadOp& op : rank_ops) {
      if (!spec_of(op.op).point_to_point) continue;
      const int size = workload.communicators.size_of(op.comm);
      EXPECT_EQ(op.group.has_value(), size == workload.header.world_size) << op.where;
      if (!op.group) {
        EXPECT_EQ(size, 2) << op.where;
      }
      (op.group ? grouped : single) += 1;
    }
  }
  EXPECT_GT(grouped, 0);
  EXPECT_GT(single, 0);
}

INSTANTIATE_TEST_SUITE_P(Sources, PipelineGroups,
                         ::testing::Values(SourceKind::nccl_log, SourceKind::kineto,
                                           SourceKind::flight_recorder));

TEST(Importers, RecordTheTimesTheirSourcesHave) {
  const LoadedWorkload kineto = imported("ddp", SourceKind::kineto);
  ASSERT_TRUE(kineto.header.time_origin_ns.has_value());
  for (const WorkloadOp& op : kineto.ops.at(1)) {
    ASSERT_TRUE(op.times.start_us && op.times.issue_us) << op.where;
    EXPECT_GE(*op.times.start_us, *op.times.issue_us)
        << op.where;  // the kernel runs after its call
    EXPECT_GE(*op.times.issue_us, 0.0);
  }
  const LoadedWorkload dumped = imported("ddp", SourceKind::flight_recorder);
  for (const WorkloadOp& op : dumped.ops.at(1)) {
    EXPECT_TRUE(op.times.duration_us && op.times.issue_us && !op.times.start_us) << op.where;
  }
  const LoadedWorkload log = imported("ddp", SourceKind::nccl_log);
  EXPECT_FALSE(log.header.time_origin_ns.has_value());
  EXPECT_FALSE(log.ops.at(0).front().times.issue_us.has_value());
  EXPECT_TRUE(has_note(imported("subgroups", SourceKind::flight_recorder).header,
                       "roots: Flight Recorder records none; broadcast taken from group rank 0"));
}

TEST(RingWindows, StartWhereEveryMemberRecordedAWholeEpoch) {
  EXPECT_EQ(common_window_start({{false, 0, false}, {false, 1, true}}), 0);
  EXPECT_EQ(common_window_start({{true, 5, true}, {false, 1, true}}),
            5);  // collective 5 kept: epoch 5 whole
  EXPECT_EQ(common_window_start({{true, 5, false}, {true, 3, true}}),
            6);  // a send of epoch 5 first: from 6
  EXPECT_EQ(common_window_start({{true, std::nullopt, false}, {false, 1, true}}), std::nullopt);
}

// A dump as if rank `rank`'s ring buffer had dropped its first `dropped` entries.
std::vector<std::string> truncated_dumps(const std::string& job_name, int rank, std::size_t dropped,
                                         TempDir& dir) {
  std::vector<std::string> dumps;
  for (const std::string& path :
       fixture_files(load_fixture_job(job_name), SourceKind::flight_recorder)) {
    nlohmann::json dump = nlohmann::json::parse(read_whole_file(path));
    const std::string name = path.substr(path.rfind('/') + 1);
    if (name == "fr.rank" + std::to_string(rank) + ".json") {
      auto& entries = dump.at("entries");
      entries.erase(entries.begin(), entries.begin() + static_cast<std::ptrdiff_t>(dropped));
    }
    dumps.push_back(dir.write(name, dump.dump()));
  }
  return dumps;
}

TEST(FlightRecorderImport, IntersectsWindowsWhenARingBufferDroppedEntries) {
  TempDir dir;
  TempFile file("window.jsonl");
  // tp_dp: rank 1's first 10 entries gone, among them collectives of all three process groups.
  import_to(file.path(), SourceKind::flight_recorder, truncated_dumps("tp_dp", 1, 10, dir));
  const CheckSummary checked = check_workload(file.path());
  LoadedWorkload workload = load_workload(file.path());
  EXPECT_TRUE(has_note(workload.header, "ring buffer: rank 1's dump starts at entry 10"));
  EXPECT_TRUE(has_note(workload.header, "ring buffers dropped earlier entries on some ranks"));
  EXPECT_LT(checked.ops, 180u);  // fewer than the 4 x 45 recorded
  EXPECT_GT(checked.ops, 140u);
  // pipeline: rank 1 loses its first sends and recvs; epochs realign the pairs after it.
  TempDir pipeline_dir;
  import_to(file.path(), SourceKind::flight_recorder,
            truncated_dumps("pipeline", 1, 3, pipeline_dir));
  EXPECT_NO_THROW(check_workload(file.path()));
}

}  // namespace
}  // namespace collbench::replay::testing
