// Flight Recorder entries to ops.
#include "import/flight_recorder_entries.hpp"

#include <fmt/format.h>

#include <charconv>
#include <optional>

#include "import/torch_names.hpp"
#include "import/torch_notes.hpp"
#include "import/torch_pair_communicators.hpp"
#include "workload/input_error.hpp"

namespace collbench::replay {
namespace {

constexpr std::string_view kPrefix = "nccl:";

std::uint64_t elements_of(const std::vector<std::vector<std::int64_t>>& shapes) {
  std::uint64_t total = 0;
  for (const auto& shape : shapes) {
    std::uint64_t elements = 1;
    for (const std::int64_t extent : shape)
      elements *= static_cast<std::uint64_t>(std::max<std::int64_t>(extent, 0));
    total += elements;
  }
  return total;
}

DataType entry_type(const FlightRecorderEntry& entry, const std::string& where) {
  const auto& dtypes = entry.input_dtypes.empty() ? entry.output_dtypes : entry.input_dtypes;
  if (dtypes.empty()) throw_bad_input(where, "no input_dtypes or output_dtypes");
  for (const std::string& name : dtypes) {
    if (name != dtypes.front())
      throw_bad_input(where, fmt::format("mixed dtypes {} and {}", show_value(dtypes.front()),
                                         show_value(name)));
  }
  const auto type = data_type_of_torch(dtypes.front());
  if (!type)
    throw_bad_input(
        where, fmt::format("dtype {} is not one collbench replays", show_value(dtypes.front())));
  return *type;
}

// "send 0->1" / "recv 1<-0": the peer, after checking that the first rank is this one.
int p2p_peer(std::string_view ends, int self, int ranks, const std::string& where) {
  const std::size_t arrow = ends.find(ends.find("->") != std::string_view::npos ? "->" : "<-");
  int from = -1;
  int peer = -1;
  const bool read =
      arrow != std::string_view::npos &&
      std::from_chars(ends.data(), ends.data() + arrow, from).ec == std::errc() &&
      std::from_chars(ends.data() + arrow + 2, ends.data() + ends.size(), peer).ec == std::errc();
  if (!read || from != self || peer < 0 || peer >= ranks) {
    throw_bad_input(where, fmt::format("{} does not name this rank ({} in its process group) and "
                                       "a peer among {} ranks",
                                       show_value(ends), self, ranks));
  }
  return peer;
}

void set_op(const FlightRecorderEntry& entry, std::string_view name, const std::string& where,
            const ImportOptions& options, ImportSession& session, ImportedOp& imported) {
  WorkloadOp& op = imported.op;
  const std::size_t space = name.find(' ');
  const std::string_view kind = name.substr(0, space);
  const auto collective = find_torch_collective(kind);
  if (!collective)
    throw_bad_input(where, fmt::format("profiling_name {} is not one collbench replays",
                                       show_value(entry.profiling_name)));
  op.op = collective->op;
  const int ranks = session.communicators().size_of(op.comm);
  const std::uint64_t sent = elements_of(entry.input_sizes);
  const std::uint64_t received = elements_of(entry.output_sizes);
  // Even splits send what they receive; uneven ones need the splits, which the dump lacks.
  if (collective->op == ReplayOp::alltoall && sent != received) {
    throw_bad_input(where,
                    fmt::format("all_to_all sends {} elements and receives {}: uneven splits, "
                                "which Flight Recorder does not record; import this job's NCCL "
                                "logs or profiler traces instead",
                                sent, received));
  }
  set_torch_count(*collective, sent, received, ranks, where, op);
  note_count_rule(*collective, session);
  if (spec_of(op.op).reduces)
    op.redop = assumed_reduction(op.op, options, "Flight Recorder", session);
  if (spec_of(op.op).rooted) {
    op.root = 0;
    session.assume(fmt::format("roots: Flight Recorder records none; {} taken from group rank 0",
                               name_of(op.op)));
  }
  if (op.op == ReplayOp::alltoall) {
    session.assume("all_to_all: Flight Recorder records no splits; replayed as even (alltoall)");
  }
  if (spec_of(op.op).point_to_point) {
    const int self = session.communicators().local_rank(op.comm, op.rank);
    op.peer =
        p2p_peer(space == std::string_view::npos ? "" : name.substr(space + 1), self, ranks, where);
    imported.stream_key = fmt::format("process group {} p2p {}:{}", entry.group_name,
                                      std::min(self, *op.peer), std::max(self, *op.peer));
  } else {
    imported.has_seq = true;
    op.seq = entry.collective_seq;
  }
}

ImportedOp convert_entry(const FlightRecorderDump& dump, const FlightRecorderEntry& entry,
                         const ImportOptions& options, ImportSession& session) {
  const std::string where = flight_recorder_place(dump, entry.index);
  ImportedOp imported;
  WorkloadOp& op = imported.op;
  op.rank = dump.rank;
  const auto comm = session.find_communicator(process_group_key(entry.group_name));
  if (!comm)
    throw_bad_input(
        where, fmt::format("process group {} is in no pg_config", show_value(entry.group_name)));
  op.comm = *comm;
  if (session.communicators().local_rank(op.comm, op.rank) < 0) {
    throw_bad_input(where, fmt::format("rank {} is not in process group {}", op.rank,
                                       show_value(entry.group_name)));
  }
  op.dtype = entry_type(entry, where);
  imported.stream_key = "process group " + entry.group_name;
  set_op(entry, std::string_view(entry.profiling_name).substr(kPrefix.size()), where, options,
         session, imported);
  op.where = where;
  imported.times.issue_ns = entry.created_ns;
  if (entry.duration_ms) imported.times.duration_us = *entry.duration_ms * 1000.0;
  return imported;
}

// An nccl:coalesced entry closes the batch before it: the send/recv entries of its process group
// with its p2p_seq_id, which become one group with its duration and stream.
void close_batch(const FlightRecorderDump& dump, const FlightRecorderEntry& end,
                 std::vector<std::pair<const FlightRecorderEntry*, ImportedOp>>& ops,
                 std::int64_t group) {
  std::size_t members = 0;
  for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
    const FlightRecorderEntry& entry = *it->first;
    if (!entry.is_p2p || entry.group_name != end.group_name || entry.p2p_seq != end.p2p_seq ||
        it->second.group_key)
      break;
    it->second.group_key = group;
    it->second.stream_key = "process group " + end.group_name;
    if (end.duration_ms) it->second.times.duration_us = *end.duration_ms * 1000.0;
    ++members;
  }
  if (members == 0) {
    throw_bad_input(flight_recorder_place(dump, end.index),
                    "nccl:coalesced without send/recv entries before it (coalesced collectives are "
                    "not replayed)");
  }
}

}  // namespace

std::string process_group_key(const std::string& name) {
  return "process group " + name;
}

std::vector<ImportedOp> flight_recorder_rank_ops(
    const FlightRecorderDump& dump, const std::map<std::string, std::int64_t>& window_start,
    const ImportOptions& options, ImportSession& session) {
  std::vector<std::pair<const FlightRecorderEntry*, ImportedOp>> ops;
  std::int64_t next_group = 0;
  for (const FlightRecorderEntry& entry : dump.entries) {
    const auto start = window_start.find(entry.group_name);
    if (start == window_start.end() || entry.collective_seq < start->second) continue;
    if (entry.profiling_name.rfind(kPrefix, 0) != 0) {
      throw_bad_input(
          flight_recorder_place(dump, entry.index),
          fmt::format("profiling_name {} is no NCCL op", show_value(entry.profiling_name)));
    }
    if (entry.profiling_name == "nccl:coalesced") {
      close_batch(dump, entry, ops, next_group++);
      continue;
    }
    ops.emplace_back(&entry, convert_entry(dump, entry, options, session));
  }
  std::vector<ImportedOp> imported;
  imported.reserve(ops.size());
  for (auto& [entry, op] : ops) imported.push_back(std::move(op));
  move_single_point_to_point_to_pairs(imported, session);
  return imported;
}

}  // namespace collbench::replay
