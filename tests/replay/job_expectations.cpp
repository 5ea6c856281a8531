// job.json to expected ops.
#include "job_expectations.hpp"

#include <dirent.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <stdexcept>

namespace collbench::replay::testing {
namespace {

using nlohmann::json;

DataType torch_type(const std::string& name) {
  if (name == "float32") return DataType::float32;
  if (name == "bfloat16") return DataType::bfloat16;
  if (name == "int64") return DataType::int64;
  throw std::runtime_error("job.json dtype " + name);
}

std::vector<int> group_of(const json& job, const std::string& label, int rank) {
  for (const json& group : job.at("process_groups")) {
    const std::vector<int> ranks = group.at("ranks").get<std::vector<int>>();
    if (group.at("label") == label && std::find(ranks.begin(), ranks.end(), rank) != ranks.end())
      return ranks;
  }
  throw std::runtime_error("job.json: no group " + label + " holding rank " + std::to_string(rank));
}

void set_all_to_all(const json& entry, int ranks, ExpectedOp& op) {
  const std::uint64_t elements = entry.at("in_count").get<std::uint64_t>();
  if (entry.at("in_splits").is_null()) {
    op.op = ReplayOp::alltoall;
    op.count = elements / static_cast<std::uint64_t>(ranks);
    return;
  }
  const auto in_splits = entry.at("in_splits").get<std::vector<std::uint64_t>>();
  const auto out_splits = entry.at("out_splits").get<std::vector<std::uint64_t>>();
  const std::uint64_t row =
      elements / std::accumulate(in_splits.begin(), in_splits.end(), std::uint64_t{0});
  op.op = ReplayOp::alltoallv;
  op.count = elements;
  for (const std::uint64_t split : in_splits) op.send_counts.push_back(split * row);
  for (const std::uint64_t split : out_splits) op.recv_counts.push_back(split * row);
}

ExpectedOp expected_op(const json& job, const json& entry, int rank) {
  ExpectedOp op;
  const std::string kind = entry.at("op");
  op.dtype = torch_type(entry.at("dtype"));
  op.group = group_of(job, entry.at("group"), rank);
  op.batched = entry.value("batched", false);
  if (kind == "all_reduce") {
    op.count = entry.at("in_count");
  } else if (kind == "all_gather_into_tensor") {
    op.op = ReplayOp::all_gather;
    op.count = entry.at("in_count");
  } else if (kind == "reduce_scatter_tensor") {
    op.op = ReplayOp::reduce_scatter;
    op.count = entry.at("out_count");
  } else if (kind == "broadcast") {
    op.op = ReplayOp::broadcast;
    op.count = entry.at("in_count");
    op.root = entry.at("src").get<int>();
  } else if (kind == "all_to_all_single") {
    set_all_to_all(entry, static_cast<int>(op.group.size()), op);
  } else if (kind == "send" || kind == "isend" || kind == "recv" || kind == "irecv") {
    op.op = kind.find("send") != std::string::npos ? ReplayOp::send : ReplayOp::recv;
    op.count = entry.at("count");
    op.peer = entry.at("peer").get<int>();
  } else {
    throw std::runtime_error("job.json op " + kind);
  }
  return op;
}

}  // namespace

const std::string& fixture_dir() {
  static const std::string dir = std::filesystem::exists(COLLBENCH_REPLAY_FIXTURES)
                                     ? COLLBENCH_REPLAY_FIXTURES
                                     : COLLBENCH_REPLAY_FIXTURES_IN_REPOSITORY;
  return dir;
}

std::vector<std::string> fixture_machines() {
  std::vector<std::string> machines;
  if (!std::filesystem::is_directory(fixture_dir())) return machines;
  for (const auto& entry : std::filesystem::directory_iterator(fixture_dir())) {
    if (entry.is_directory()) machines.push_back(entry.path().filename().string());
  }
  std::sort(machines.begin(), machines.end());
  return machines;
}

FixtureJob load_fixture_job(const std::string& path) {
  FixtureJob fixture;
  const std::size_t slash = path.find('/');
  fixture.name = slash == std::string::npos ? path : path.substr(slash + 1);
  fixture.dir = fixture_dir() + "/" + (slash == std::string::npos ? "h100x4/" + path : path);
  std::ifstream in(fixture.dir + "/job.json");
  fixture.job = json::parse(in);
  fixture.world_size = fixture.job.at("world_size");
  fixture.warmup_steps = fixture.job.at("steps").at("warmup");
  fixture.profiled_steps = fixture.job.at("steps").at("profiled");
  for (const auto& [rank_text, ops] : fixture.job.at("ops_per_step").items()) {
    const int rank = std::stoi(rank_text);
    for (const json& entry : ops)
      fixture.step_ops[rank].push_back(expected_op(fixture.job, entry, rank));
  }
  return fixture;
}

int recorded_steps(const FixtureJob& job, SourceKind source) {
  return source == SourceKind::kineto ? job.profiled_steps : job.warmup_steps + job.profiled_steps;
}

std::vector<ExpectedOp> as_recorded(const std::vector<ExpectedOp>& step, SourceKind source) {
  std::vector<ExpectedOp> recorded;
  for (const ExpectedOp& op : step) {
    if (op.op != ReplayOp::alltoallv || source == SourceKind::kineto) {
      recorded.push_back(op);
      continue;
    }
    const int ranks = static_cast<int>(op.group.size());
    if (source == SourceKind::flight_recorder) {  // no splits: even, as the importer assumes
      ExpectedOp even = op;
      even.op = ReplayOp::alltoall;
      even.count = op.count / static_cast<std::uint64_t>(ranks);
      even.send_counts.clear();
      even.recv_counts.clear();
      recorded.push_back(even);
      continue;
    }
    for (int peer = 0; peer < ranks; ++peer) {  // NCCL's log: a send and a recv per peer
      for (const ReplayOp direction : {ReplayOp::send, ReplayOp::recv}) {
        ExpectedOp p2p = op;
        p2p.op = direction;
        p2p.count = (direction == ReplayOp::send ? op.send_counts
                                                 : op.recv_counts)[static_cast<std::size_t>(peer)];
        p2p.send_counts.clear();
        p2p.recv_counts.clear();
        p2p.peer = op.group[static_cast<std::size_t>(peer)];
        p2p.batched = true;
        recorded.push_back(p2p);
      }
    }
  }
  return recorded;
}

bool sends_other_than_it_receives(const FixtureJob& job) {
  for (const auto& [rank, ops] : job.step_ops) {
    for (const ExpectedOp& op : ops) {
      if (op.op != ReplayOp::alltoallv) continue;
      if (std::accumulate(op.send_counts.begin(), op.send_counts.end(), std::uint64_t{0}) !=
          std::accumulate(op.recv_counts.begin(), op.recv_counts.end(), std::uint64_t{0}))
        return true;
    }
  }
  return false;
}

std::vector<std::string> fixture_files(const FixtureJob& job, SourceKind source) {
  const std::string prefix = source == SourceKind::nccl_log ? "nccl."
                             : source == SourceKind::kineto ? "kineto."
                                                            : "fr.";
  std::vector<std::string> files;
  DIR* folder = opendir(job.dir.c_str());
  if (folder == nullptr) throw std::runtime_error("no fixture folder " + job.dir);
  while (const dirent* entry = readdir(folder)) {
    const std::string name = entry->d_name;
    if (name.rfind(prefix, 0) == 0) files.push_back(job.dir + "/" + name);
  }
  closedir(folder);
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace collbench::replay::testing
