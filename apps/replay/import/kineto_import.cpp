// Kineto import: survey the traces, then write each rank's ops.
#include "import/kineto_import.hpp"

#include <fmt/format.h>

#include <map>

#include "import/import_session.hpp"
#include "import/kineto_calls.hpp"
#include "import/kineto_trace.hpp"
#include "import/rank_numbering.hpp"
#include "io/path_names.hpp"
#include "workload/input_error.hpp"

namespace collbench::replay {
namespace {

void note_what_kineto_lacks(ImportSession& session) {
  session.assume(
      "window: the profiled steps only (the profiler's schedule, the same on every rank)");
  session.assume(
      "sequence numbers: record_param_comms has none; each process group's calls are "
      "counted in issue order from the trace's start");
  session.assume(
      "groups: calls without a kernel of their own, closed by an nccl:coalesced range, "
      "are one group");
  session.assume("streams: each op's kernel's stream; waits between streams are not in the trace");
  session.assume("times: issue_us when the host called it, start_us/end_us its kernel's");
  session.assume("NCCL_* settings: not in the trace");
}

// Each rank's trace path, checked to cover 0 .. world_size - 1 once.
std::map<int, std::string> survey(const std::vector<std::string>& paths,
                                  const ImportOptions& options, ImportSession& session) {
  std::map<int, std::string> by_rank;
  for (const std::string& path : paths) {
    const KinetoTrace trace = read_kineto_trace(path);
    WorkloadHeader& header = session.header();
    if (header.world_size == 0) header.world_size = trace.world_size;
    if (trace.world_size != header.world_size) {
      throw_bad_input(trace.label, fmt::format("world_size {}, other traces {}", trace.world_size,
                                               header.world_size));
    }
    if (!header.nccl_version) header.nccl_version = trace.nccl_version;
    const auto [known, added] = by_rank.emplace(trace.rank, path);
    if (!added) {
      throw_bad_input(trace.label,
                      fmt::format("rank {} again (also {})", trace.rank, base_name(known->second)));
    }
    for (const ImportedOp& op : kineto_rank_ops(trace, options, session))
      session.observe_times(op.times);
  }
  std::vector<int> missing;
  for (int rank = 0; rank < session.header().world_size; ++rank) {
    if (by_rank.count(rank) == 0) missing.push_back(rank);
  }
  if (!missing.empty()) {
    throw_bad_input(base_name(paths.front()),
                    fmt::format("no trace of rank{} {} (world_size {}: one trace per rank)",
                                missing.size() == 1 ? "" : "s", fmt::join(missing, ","),
                                session.header().world_size));
  }
  return by_rank;
}

}  // namespace

void import_kineto(const std::vector<std::string>& paths, const ImportOptions& options,
                   WorkloadWriter& writer) {
  std::vector<std::string> names;
  for (const std::string& path : paths) names.push_back(base_name(path));
  ImportSession session("kineto", names);
  note_what_kineto_lacks(session);
  const std::map<int, std::string> by_rank = survey(paths, options, session);
  session.write_preamble(writer);
  RankNumbering numbering(session.communicators(), session.header().time_origin_ns);
  for (const auto& [rank, path] : by_rank) {
    const KinetoTrace trace = read_kineto_trace(path);
    for (ImportedOp& op : kineto_rank_ops(trace, options, session))
      writer.write_op(numbering.number(op));
  }
}

}  // namespace collbench::replay
