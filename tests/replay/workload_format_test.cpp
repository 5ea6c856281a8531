// The workload format: what the writer writes the reader reads back, field by field; and every
// kind of bad line is refused in one line naming the file, the line and the bad value.
#include <gtest/gtest.h>

#include <fstream>

#include "core/collective_registry.hpp"
#include "workload/workload_reader.hpp"
#include "workload_builders.hpp"
#include "workload_files.hpp"

namespace collbench::replay::testing {
namespace {

WorkloadHeader full_header() {
  WorkloadHeader header = synthetic_header(3);
  header.source_files = {"a.log", "b.log"};
  header.nccl_version = "2.28.9+cuda13.0";
  header.nccl_env = {{"NCCL_NVLS_ENABLE", "0"}, {"NCCL_ALGO", "Ring"}};
  header.assumptions = {"one", "two \"quoted\""};
  header.time_origin_ns = 1795798624189328274;
  header.rescaled = RescaleRecord{2, 3, 1, 2, 3};
  return header;
}

std::vector<WorkloadOp> every_kind_of_op() {
  std::vector<WorkloadOp> ops;
  ops.push_back(collective_op(0, 0, 0, ReplayOp::all_reduce, 1509632));
  WorkloadOp broadcast = collective_op(0, 1, 4, ReplayOp::broadcast, 777);
  broadcast.root = 1;
  broadcast.dtype = DataType::bfloat16;
  broadcast.times = {1.5, 2.25, 10.125, std::nullopt};
  ops.push_back(broadcast);
  WorkloadOp alltoallv = collective_op(0, 0, 1, ReplayOp::alltoallv);
  alltoallv.send_counts = {1, 2, 3};
  alltoallv.recv_counts = {4, 5, 6};
  alltoallv.count = 6;
  alltoallv.group = 3;
  ops.push_back(alltoallv);
  WorkloadOp send = in_group(p2p_op(0, 0, ReplayOp::send, 2, 7, 10240, 1), 3);
  send.after = {0, 1};
  send.times.duration_us = 126.5;
  send.where = "weird \xff name:1";  // invalid UTF-8 is replaced, not refused
  ops.push_back(send);
  ops.push_back(collective_op(2, 0, 0, ReplayOp::all_reduce, 1509632));
  return ops;
}

std::vector<Communicator> three_rank_communicators() {
  return {{0, {0, 1, 2}, {"world"}}, {1, {2, 0}, {"pair", "reversed"}}};
}

TEST(WorkloadFormat, WhatIsWrittenIsReadBack) {
  TempFile file("round_trip.jsonl");
  const std::vector<WorkloadOp> ops = every_kind_of_op();
  write_workload(file.path(), full_header(), three_rank_communicators(), ops);
  const LoadedWorkload read = load_workload(file.path());
  EXPECT_EQ(read.header.source, "synthetic");
  EXPECT_EQ(read.header.source_files, full_header().source_files);
  EXPECT_EQ(read.header.nccl_version, full_header().nccl_version);
  EXPECT_EQ(read.header.nccl_env, full_header().nccl_env);
  EXPECT_EQ(read.header.assumptions, full_header().assumptions);
  EXPECT_EQ(read.header.time_origin_ns, full_header().time_origin_ns);
  ASSERT_TRUE(read.header.rescaled.has_value());
  EXPECT_EQ(read.header.rescaled->data_parallel_to, 3);
  ASSERT_EQ(read.communicators.count(), 2);
  EXPECT_EQ(read.communicators.at(1).ranks, (std::vector<int>{2, 0}));
  EXPECT_EQ(read.communicators.local_rank(1, 0), 1);
  EXPECT_EQ(read.communicators.local_rank(1, 1), -1);
  const std::vector<WorkloadOp>& rank0 = read.ops.at(0);
  ASSERT_EQ(rank0.size(), 4u);
  for (std::size_t i = 0; i < rank0.size(); ++i) {
    SCOPED_TRACE(i);
    const WorkloadOp& want = ops[i];
    const WorkloadOp& got = rank0[i];
    EXPECT_EQ(got.comm, want.comm);
    EXPECT_EQ(got.seq, want.seq);
    EXPECT_EQ(got.op, want.op);
    EXPECT_EQ(got.dtype, want.dtype);
    EXPECT_EQ(got.count, want.count);
    EXPECT_EQ(got.send_counts, want.send_counts);
    EXPECT_EQ(got.recv_counts, want.recv_counts);
    EXPECT_EQ(got.redop, want.redop);
    EXPECT_EQ(got.root, want.root);
    EXPECT_EQ(got.peer, want.peer);
    EXPECT_EQ(got.stream, want.stream);
    EXPECT_EQ(got.group, want.group);
    EXPECT_EQ(got.after, want.after);
    EXPECT_EQ(got.times.issue_us, want.times.issue_us);
    EXPECT_EQ(got.times.start_us, want.times.start_us);
    EXPECT_EQ(got.times.end_us, want.times.end_us);
    EXPECT_EQ(got.times.duration_us, want.times.duration_us);
  }
  EXPECT_EQ(rank0[3].where, "weird \xef\xbf\xbd name:1");
  EXPECT_EQ(read.ops.at(2).size(), 1u);
}

// The format's collectives are the registry's, with the same reduction and root (send and recv
// are NCCL's), so that a replayed op runs through the same table as the sweep.
TEST(WorkloadFormat, CollectivesAreTheRegistrys) {
  for (const char* name : {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce",
                           "alltoall", "alltoallv", "gather", "scatter", "send", "recv"}) {
    const auto op = find_replay_op(name);
    ASSERT_TRUE(op.has_value()) << name;
    if (spec_of(*op).point_to_point) continue;
    const CollectiveSpec& registered = find_collective(name);
    EXPECT_EQ(registered.reduces, spec_of(*op).reduces) << name;
    EXPECT_EQ(registered.rooted, spec_of(*op).rooted) << name;
  }
  // The sweep's sendrecv is the pair a workload records as a send and a recv.
  for (const CollectiveSpec& registered : collective_registry()) {
    if (registered.name == "sendrecv") continue;
    EXPECT_TRUE(find_replay_op(registered.name).has_value()) << registered.name;
  }
  EXPECT_EQ(replay_op_names(),
            "all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, alltoallv, "
            "gather, scatter, send, recv");
}

// The error reading a workload whose op lines are `op_lines` (after a valid header for 2 ranks
// and communicators 0 = {0,1}, 1 = {0}).
std::string read_error(const std::vector<std::string>& op_lines,
                       const std::string& header_line = "") {
  TempFile file("bad.jsonl");
  {
    std::ofstream out(file.path());
    out << (header_line.empty()
                ? R"({"format":"collbench-workload","version":1,"source":"t","source_files":[],"nccl_version":null,"nccl_env":{},"world_size":2,"assumptions":[],"time_origin_ns":null})"
                : header_line)
        << "\n"
        << R"({"communicator":0,"ranks":[0,1],"names":[]})"
        << "\n"
        << R"({"communicator":1,"ranks":[0],"names":[]})"
        << "\n";
    for (const std::string& line : op_lines) out << line << "\n";
  }
  const std::string error = usage_error_of([&] { load_workload(file.path()); });
  const std::string prefix = file.path() + ":";
  if (error.empty()) return "";
  EXPECT_EQ(error.rfind(prefix, 0), 0u) << error;  // it starts with the file
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  return error.substr(prefix.size());
}

const std::string kGood =
    R"({"rank":0,"comm":0,"seq":0,"op":"all_reduce","dtype":"float","count":8,"redop":"sum","stream":0)";

std::string op_line(const std::string& extra) {
  return kGood + extra + "}";
}

TEST(WorkloadFormat, BadFieldsAreNamedWithTheirLine) {
  EXPECT_EQ(read_error({op_line("")}), "");
  EXPECT_EQ(read_error({R"({"rank":0,)"}).substr(0, 14), "4: not JSON (p");
  EXPECT_EQ(read_error({op_line(R"(,"bogus":1)")}), "4: unknown field 'bogus'");
  EXPECT_EQ(
      read_error(
          {R"({"rank":0,"comm":0,"seq":0,"op":"all_reduce","dtype":"float","redop":"sum","stream":0})"}),
      "4: no 'count' field");
  EXPECT_EQ(
      read_error(
          {R"({"rank":0,"comm":0,"seq":0,"op":"all_reduce","dtype":"float","count":-3,"redop":"sum","stream":0})"}),
      "4: 'count' is -3, not a count (an integer >= 0)");
  EXPECT_EQ(
      read_error(
          {R"({"rank":1,"comm":1,"seq":0,"op":"all_reduce","dtype":"float","count":3,"redop":"sum","stream":0})"}),
      "4: rank 1 is not a member of communicator 1 (ranks 0)");
  EXPECT_EQ(
      read_error(
          {R"({"rank":0,"comm":0,"seq":0,"op":"frobnicate","dtype":"float","count":3,"stream":0})"})
          .substr(0, 29),
      "4: 'op' is \"frobnicate\", not ");
  EXPECT_EQ(
      read_error(
          {R"({"rank":0,"comm":0,"seq":0,"op":"all_reduce","dtype":"float8","count":3,"redop":"sum","stream":0})"})
          .substr(0, 28),
      "4: 'dtype' is \"float8\", not ");
  EXPECT_EQ(
      read_error(
          {R"({"rank":0,"comm":0,"seq":0,"op":"all_reduce","dtype":"float","count":3,"stream":0})"}),
      "4: all_reduce without 'redop'");
  EXPECT_EQ(
      read_error(
          {R"({"rank":0,"comm":0,"seq":0,"op":"broadcast","dtype":"float","count":3,"root":0,"peer":1,"stream":0})"}),
      "4: broadcast takes no 'peer'");
  EXPECT_EQ(
      read_error(
          {R"({"rank":0,"comm":0,"seq":0,"op":"broadcast","dtype":"float","count":3,"root":4,"stream":0})"}),
      "4: 'root' is 4, not an integer from 0 to 1");
  EXPECT_EQ(
      read_error(
          {R"({"rank":0,"comm":0,"seq":0,"op":"alltoallv","dtype":"float","send_counts":[1],"recv_counts":[1,2],"stream":0})"}),
      "4: alltoallv has 1 send_counts, not one per communicator rank (2)");
  EXPECT_EQ(read_error({op_line(R"(,"start_us":5)")}), "4: 'start_us' and 'end_us' come together");
  EXPECT_EQ(read_error({op_line(R"(,"start_us":5,"end_us":4)")}),
            "4: 'end_us' 4 is before 'start_us' 5");
}

TEST(WorkloadFormat, OrderAcrossLinesIsChecked) {
  const std::string rank1 =
      R"({"rank":1,"comm":0,"seq":0,"op":"all_reduce","dtype":"float","count":8,"redop":"sum","stream":0})";
  EXPECT_EQ(read_error({rank1, op_line("")}),
            "5: rank 0 after rank 1: each rank's ops come together, ranks in increasing order");
  EXPECT_EQ(read_error({op_line(""), op_line("")}).substr(0, 43),
            "5: seq 0 after seq 0 on rank 0 (communicato");
  const std::string seq1 =
      R"({"rank":0,"comm":0,"seq":1,"op":"all_reduce","dtype":"float","count":8,"redop":"sum","stream":0)";
  const std::string seq2 =
      R"({"rank":0,"comm":0,"seq":2,"op":"all_reduce","dtype":"float","count":8,"redop":"sum","stream":0)";
  EXPECT_EQ(read_error({op_line(R"(,"group":1)"), seq1 + R"(,"group":0})"}).substr(0, 22),
            "5: group 0 after group");
  EXPECT_EQ(
      read_error({op_line(R"(,"group":1)"), seq1 + "}", seq2 + R"(,"group":1})"}).substr(0, 22),
      "6: group 1 after group");
  EXPECT_EQ(read_error({op_line(R"(,"after":[0])")}).substr(0, 27), "4: 'after' names op 0 of ra");
  EXPECT_EQ(read_error({op_line(""), R"({"communicator":2,"ranks":[0],"names":[]})"}),
            "5: a communicator line after the first op line (communicators come first)");
  // A source location in the line is named beside the line.
  EXPECT_EQ(read_error({op_line(R"(,"where":"x.log:9","bogus":1)")}),
            "4 (x.log:9): unknown field 'bogus'");
}

TEST(WorkloadFormat, BadHeadersAreRefused) {
  EXPECT_EQ(read_error({}, R"({"format":"collbench-workload","version":2})"),
            "1: workload version 2; this collbench reads version 1");
  EXPECT_EQ(read_error({}, R"({"format":"something-else","version":1})").substr(0, 28),
            "1: not a collbench workload ");
  EXPECT_EQ(
      read_error(
          {},
          R"({"format":"collbench-workload","version":1,"source":"t","source_files":[],"nccl_version":null,"nccl_env":{"OMP_NUM_THREADS":"1"},"world_size":2,"assumptions":[],"time_origin_ns":null})"),
      "1: 'nccl_env' holds 'OMP_NUM_THREADS', not an NCCL_* setting");
  EXPECT_EQ(
      read_error(
          {},
          R"({"format":"collbench-workload","version":1,"source":"t","source_files":[],"nccl_version":null,"nccl_env":{},"world_size":1,"assumptions":[],"time_origin_ns":null})"),
      "2: 'ranks' is 1, not an integer from 0 to 0");
}

TEST(WorkloadFormat, LongBadValuesAreShortened) {
  const std::string huge(5000, 'x');
  const std::string error = read_error({op_line(R"(,")" + huge + R"(":1)")});
  EXPECT_LT(error.size(), 120u);
  EXPECT_NE(error.find("..."), std::string::npos);
}

}  // namespace
}  // namespace collbench::replay::testing
