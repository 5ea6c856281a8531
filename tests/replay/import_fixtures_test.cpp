// Every importer on every committed fixture job (tests/replay/fixtures/h100x4), checked against
// what the job ran (its job.json): per rank and step the op kinds, counts, dtypes, roots, peers and
// communicator memberships; for DDP and FSDP, which issue their own communication, the totals
// job.json expects. Each import must also pass the check.
#include <gtest/gtest.h>

#include <map>
#include <numeric>

#include "check/workload_check.hpp"
#include "job_expectations.hpp"
#include "workload_files.hpp"

namespace collbench::replay::testing {
namespace {

struct FixtureCase {
  std::string job;
  SourceKind source;
};

// "h100x2_ddp_kineto": the job's path ("h100x2/ddp") and its source.
std::string case_name(const ::testing::TestParamInfo<FixtureCase>& info) {
  std::string name = info.param.job + "_" + std::string(name_of(info.param.source));
  std::replace(name.begin(), name.end(), '-', '_');
  std::replace(name.begin(), name.end(), '/', '_');
  return name;
}

void expect_op(const ExpectedOp& expected, const WorkloadOp& actual, const CommunicatorTable& comms,
               SourceKind source) {
  SCOPED_TRACE(actual.where);
  EXPECT_EQ(name_of(actual.op), name_of(expected.op));
  EXPECT_EQ(name_of(actual.dtype), name_of(expected.dtype));
  if (expected.op == ReplayOp::alltoallv) {
    EXPECT_EQ(actual.send_counts, expected.send_counts);
    EXPECT_EQ(actual.recv_counts, expected.recv_counts);
  } else {
    EXPECT_EQ(actual.count, expected.count);
  }
  const std::vector<int>& ranks = comms.at(actual.comm).ranks;
  if (expected.peer) {
    ASSERT_TRUE(actual.peer.has_value());
    EXPECT_EQ(ranks[static_cast<std::size_t>(*actual.peer)], *expected.peer);
  }
  if (expected.peer && !expected.batched) {
    // PyTorch gives each pair of ranks a communicator of its own for single sends and receives:
    // the NCCL log shows it, the other importers make it.
    const std::vector<int> pair{std::min(actual.rank, *expected.peer),
                                std::max(actual.rank, *expected.peer)};
    EXPECT_EQ(ranks, pair);
  } else {
    EXPECT_EQ(ranks, expected.group);
  }
  if (expected.root && source != SourceKind::flight_recorder) {  // Flight Recorder has no roots
    ASSERT_TRUE(actual.root.has_value());
    EXPECT_EQ(ranks[static_cast<std::size_t>(*actual.root)], *expected.root);
  }
  if (expected.batched) {
    EXPECT_TRUE(actual.group.has_value()) << "a batched op outside a group";
  }
}

void expect_every_step(const FixtureJob& job, const LoadedWorkload& workload, SourceKind source) {
  const int steps = recorded_steps(job, source);
  for (const auto& [rank, step] : job.step_ops) {
    SCOPED_TRACE("rank " + std::to_string(rank));
    const std::vector<ExpectedOp> one_step = as_recorded(step, source);
    const auto found = workload.ops.find(rank);
    ASSERT_NE(found, workload.ops.end());
    const std::vector<WorkloadOp>& ops = found->second;
    ASSERT_EQ(ops.size(), one_step.size() * static_cast<std::size_t>(steps));
    for (std::size_t i = 0; i < ops.size(); ++i) {
      expect_op(one_step[i % one_step.size()], ops[i], workload.communicators, source);
    }
  }
}

// Sum of counts and calls of `op` on rank `rank`, all on the world.
std::pair<std::uint64_t, std::size_t> totals(const LoadedWorkload& workload, int rank, ReplayOp op,
                                             DataType dtype, std::vector<std::uint64_t>* counts) {
  std::uint64_t elements = 0;
  std::size_t calls = 0;
  for (const WorkloadOp& actual : workload.ops.at(rank)) {
    if (actual.op != op) continue;
    EXPECT_EQ(name_of(actual.dtype), name_of(dtype)) << actual.where;
    std::vector<int> world(static_cast<std::size_t>(workload.header.world_size));
    std::iota(world.begin(), world.end(), 0);
    EXPECT_EQ(workload.communicators.at(actual.comm).ranks, world) << actual.where;
    elements += actual.count;
    ++calls;
    if (counts != nullptr) counts->push_back(actual.count);
  }
  return {elements, calls};
}

// DDP: one all_reduce per bucket, the buckets summing to the model's parameters every step.
void expect_ddp(const FixtureJob& job, const LoadedWorkload& workload, SourceKind source) {
  const int steps = recorded_steps(job, source);
  const std::uint64_t parameters =
      job.job.at("expect").at("per_step").at("all_reduce").at("elements_in_all");
  for (int rank = 0; rank < job.world_size; ++rank) {
    const auto [elements, calls] =
        totals(workload, rank, ReplayOp::all_reduce, DataType::float32, nullptr);
    EXPECT_EQ(elements, parameters * static_cast<std::uint64_t>(steps));
    if (source == SourceKind::kineto) {
      EXPECT_EQ(calls, 3u * static_cast<std::size_t>(steps));  // 3 buckets once warmed up
    }
  }
}

// FSDP: per step, each unit all-gathered twice in bf16 and reduce-scattered once in float32,
// each rank's count its shard (a quarter of the unit).
void expect_fsdp(const FixtureJob& job, const LoadedWorkload& workload, SourceKind source) {
  const auto steps = static_cast<std::size_t>(recorded_steps(job, source));
  std::vector<std::uint64_t> shards;
  for (const std::uint64_t unit :
       job.job.at("model").at("unit_parameters").get<std::vector<std::uint64_t>>()) {
    shards.push_back(unit / static_cast<std::uint64_t>(job.world_size));
  }
  std::sort(shards.begin(), shards.end());
  const auto repeated = [&](std::size_t times) {
    std::vector<std::uint64_t> all;
    for (std::size_t i = 0; i < times; ++i) all.insert(all.end(), shards.begin(), shards.end());
    std::sort(all.begin(), all.end());
    return all;
  };
  for (int rank = 0; rank < job.world_size; ++rank) {
    std::vector<std::uint64_t> gathered, scattered;
    totals(workload, rank, ReplayOp::all_gather, DataType::bfloat16, &gathered);
    totals(workload, rank, ReplayOp::reduce_scatter, DataType::float32, &scattered);
    std::sort(gathered.begin(), gathered.end());
    std::sort(scattered.begin(), scattered.end());
    EXPECT_EQ(gathered, repeated(2 * steps));
    EXPECT_EQ(scattered, repeated(steps));
    EXPECT_EQ(workload.ops.at(rank).size(), 3 * shards.size() * steps);
  }
}

class ImportFixture : public ::testing::TestWithParam<FixtureCase> {};

TEST_P(ImportFixture, HoldsWhatTheJobRanAndPassesTheCheck) {
  const FixtureJob job = load_fixture_job(GetParam().job);
  const SourceKind source = GetParam().source;
  const std::vector<std::string> files = fixture_files(job, source);
  ASSERT_EQ(files.size(), static_cast<std::size_t>(job.world_size));
  EXPECT_EQ(detect_source_kind(files), source);
  TempFile workload_file(job.name + ".jsonl");
  if (source == SourceKind::flight_recorder && sends_other_than_it_receives(job)) {
    // Flight Recorder keeps each rank's totals, not its splits: refused, not replayed as even.
    EXPECT_NE(usage_error_of([&] {
                import_to(workload_file.path(), source, files);
              }).find("uneven splits, which Flight Recorder does not record"),
              std::string::npos);
    return;
  }
  import_to(workload_file.path(), source, files);
  const CheckSummary checked = check_workload(workload_file.path());
  const LoadedWorkload workload = load_workload(workload_file.path());
  EXPECT_EQ(workload.header.world_size, job.world_size);
  EXPECT_EQ(workload.header.source, name_of(source));
  ASSERT_TRUE(workload.header.nccl_version.has_value());
  EXPECT_EQ(
      workload.header.nccl_version->rfind(job.job.at("versions").at("nccl").get<std::string>(), 0),
      0u);
  EXPECT_EQ(checked.ranks_with_ops, job.world_size);
  if (job.name == "ddp") {
    expect_ddp(job, workload, source);
  } else if (job.name == "fsdp") {
    expect_fsdp(job, workload, source);
  } else {
    expect_every_step(job, workload, source);
  }
}

// Every job of every machine's recording (both must hold all six), from each source.
std::vector<FixtureCase> every_case() {
  std::vector<FixtureCase> cases;
  for (const char* machine : {"h100x4", "h100x2"}) {
    for (const char* job : {"ddp", "fsdp", "tp_dp", "moe", "pipeline", "subgroups"}) {
      for (const SourceKind source :
           {SourceKind::nccl_log, SourceKind::kineto, SourceKind::flight_recorder}) {
        cases.push_back({std::string(machine) + "/" + job, source});
      }
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, ImportFixture, ::testing::ValuesIn(every_case()), case_name);

}  // namespace
}  // namespace collbench::replay::testing
