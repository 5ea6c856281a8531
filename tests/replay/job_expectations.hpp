// What a fixture job ran (its job.json, written by ci/record_traces.py), as the workload ops each
// importer should produce: the ops every rank issues per step, in collbench's terms, and how each
// source records them (NCCL's log shows all_to_all_single with splits as its sends and receives,
// Flight Recorder records no splits).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "import/source_kind.hpp"
#include "workload/workload_records.hpp"

namespace collbench::replay::testing {

// tests/replay/fixtures (one folder per machine the jobs were recorded on: h100x4, h100x2) where
// the build found it; else (a GPU test binary carried to another machine and run from the
// repository root) the same folder under the working directory.
const std::string& fixture_dir();
// The machine folders under fixture_dir(), sorted.
std::vector<std::string> fixture_machines();

struct ExpectedOp {
  ReplayOp op = ReplayOp::all_reduce;
  DataType dtype = DataType::float32;
  std::uint64_t count = 0;
  std::vector<std::uint64_t> send_counts, recv_counts;  // alltoallv
  std::vector<int> group;                               // the process group's global ranks
  std::optional<int> root;                              // global
  std::optional<int> peer;                              // global
  bool batched = false;                                 // inside batch_isend_irecv: one group
};

struct FixtureJob {
  std::string name;  // the job: "ddp"
  std::string dir;
  nlohmann::json job;
  int world_size = 0;
  int warmup_steps = 0;
  int profiled_steps = 0;
  std::map<int, std::vector<ExpectedOp>> step_ops;  // per rank, one step (empty: DDP, FSDP)
};

// `path`: "h100x2/ddp", or a job name alone for the 4-GPU recording ("ddp": "h100x4/ddp").
FixtureJob load_fixture_job(const std::string& path);

// The steps a source holds: NCCL's log and Flight Recorder every step, the profiler the
// profiled ones.
int recorded_steps(const FixtureJob& job, SourceKind source);

// One step of one rank as `source` records it.
std::vector<ExpectedOp> as_recorded(const std::vector<ExpectedOp>& step, SourceKind source);

// Whether a rank of the job sends another element count than it receives in an all_to_all (its
// Flight Recorder dump is refused at import: it keeps totals, not splits).
bool sends_other_than_it_receives(const FixtureJob& job);

// The fixture's files of `source`, in the order ls gives them.
std::vector<std::string> fixture_files(const FixtureJob& job, SourceKind source);

}  // namespace collbench::replay::testing
