// record_param_comms arguments to ops.
#include "import/kineto_calls.hpp"

#include <fmt/format.h>

#include <cmath>
#include <numeric>
#include <unordered_map>

#include "import/torch_names.hpp"
#include "import/torch_notes.hpp"
#include "import/torch_pair_communicators.hpp"
#include "workload/input_error.hpp"

namespace collbench::replay {
namespace {

using nlohmann::json;

const json& argument(const KinetoCall& call, const char* name, const std::string& where) {
  const auto found = call.args.find(name);
  if (found == call.args.end())
    throw_bad_input(where, fmt::format("record_param_comms without '{}'", name));
  return *found;
}

std::string text_argument(const KinetoCall& call, const char* name, const std::string& where) {
  const json& value = argument(call, name, where);
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_integer()) return std::to_string(value.get<std::int64_t>());
  throw_bad_input(where, fmt::format("'{}' is {}, not a name", name, show_value(value.dump())));
}

std::int64_t integer_argument(const KinetoCall& call, const char* name, const std::string& where) {
  const json& value = argument(call, name, where);
  if (!value.is_number_integer()) {
    throw_bad_input(where,
                    fmt::format("'{}' is {}, not an integer", name, show_value(value.dump())));
  }
  return value.get<std::int64_t>();
}

int group_rank_argument(const KinetoCall& call, const char* name, int ranks,
                        const std::string& where) {
  const std::int64_t rank = integer_argument(call, name, where);
  if (rank < 0 || rank >= ranks) {
    throw_bad_input(where,
                    fmt::format("'{}' {} is no rank of a process group of {}", name, rank, ranks));
  }
  return static_cast<int>(rank);
}

int process_group(const KinetoCall& call, const KinetoTrace& trace, const std::string& where,
                  ImportSession& session) {
  const std::string name = text_argument(call, "Process Group Name", where);
  std::vector<int> ranks;
  for (const std::int64_t rank :
       torch_int_list(argument(call, "Process Group Ranks", where), "Process Group Ranks", where)) {
    ranks.push_back(static_cast<int>(rank));
  }
  if (const auto configured = trace.group_ranks.find(name);
      ranks.empty() && configured != trace.group_ranks.end()) {
    ranks = configured->second;
  }
  if (std::find(ranks.begin(), ranks.end(), trace.rank) == ranks.end()) {
    throw_bad_input(where, fmt::format("process group {} (ranks {}) does not hold this trace's "
                                       "rank {}",
                                       show_value(name), fmt::join(ranks, ","), trace.rank));
  }
  const auto description = call.args.find("Process Group Description");
  std::vector<std::string> names{"process group " + name};
  if (description != call.args.end() && description->is_string())
    names.push_back(description->get<std::string>());
  return session.communicator("process group " + name, ranks, names, where);
}

// all_to_all_single with splits: rows per peer times the elements of a row.
std::vector<std::uint64_t> per_peer_counts(const KinetoCall& call, const char* splits_name,
                                           std::uint64_t elements, int ranks,
                                           const std::string& where) {
  const std::vector<std::int64_t> splits =
      torch_int_list(argument(call, splits_name, where), splits_name, where);
  const std::int64_t rows = std::accumulate(splits.begin(), splits.end(), std::int64_t{0});
  if (static_cast<int>(splits.size()) != ranks || rows <= 0 ||
      elements % static_cast<std::uint64_t>(rows) != 0) {
    throw_bad_input(
        where, fmt::format("'{}' {} does not split {} elements over {} ranks", splits_name,
                           show_value(argument(call, splits_name, where).dump()), elements, ranks));
  }
  std::vector<std::uint64_t> counts;
  for (const std::int64_t split : splits) {
    counts.push_back(static_cast<std::uint64_t>(split) *
                     (elements / static_cast<std::uint64_t>(rows)));
  }
  return counts;
}

void set_sizes(const KinetoCall& call, const TorchCollective& collective, int ranks,
               const std::string& where, WorkloadOp& op) {
  const auto input = static_cast<std::uint64_t>(integer_argument(call, "In msg nelems", where));
  const auto output = static_cast<std::uint64_t>(integer_argument(call, "Out msg nelems", where));
  const auto splits = call.args.find("In split size");
  const bool uneven = op.op == ReplayOp::alltoall && splits != call.args.end() &&
                      !torch_int_list(*splits, "In split size", where).empty();
  if (!uneven) {
    set_torch_count(collective, input, output, ranks, where, op);
    return;
  }
  op.op = ReplayOp::alltoallv;
  op.send_counts = per_peer_counts(call, "In split size", input, ranks, where);
  op.recv_counts = per_peer_counts(call, "Out split size", output, ranks, where);
  op.count = input;
}

void set_arguments(const KinetoCall& call, int ranks, const std::string& where,
                   const ImportOptions& options, ImportSession& session, WorkloadOp& op) {
  const ReplayOpSpec& spec = spec_of(op.op);
  if (spec.reduces) op.redop = assumed_reduction(op.op, options, "record_param_comms", session);
  if (spec.rooted)
    op.root = group_rank_argument(call, "Rank", ranks, where);  // the root's group rank
  if (op.op == ReplayOp::send) op.peer = group_rank_argument(call, "Dst Rank", ranks, where);
  if (op.op == ReplayOp::recv) op.peer = group_rank_argument(call, "Src Rank", ranks, where);
}

std::int64_t to_ns(const KinetoTrace& trace, double us) {
  return trace.base_ns + static_cast<std::int64_t>(std::llround(us * 1000.0));
}

// Nothing for calls that are not communication (a host's wait for an op).
std::optional<ImportedOp> convert_call(const KinetoTrace& trace, const KinetoCall& call,
                                       const ImportOptions& options, ImportSession& session) {
  const std::string where = kineto_place(trace, call.event);
  const std::string name = text_argument(call, "Collective name", where);
  if (name == "wait") {
    session.assume("wait: a host's wait for an op is no communication and is left out");
    return std::nullopt;
  }
  const auto collective = find_torch_collective(name);
  if (!collective)
    throw_bad_input(where,
                    fmt::format("collective {} is not one collbench replays", show_value(name)));
  ImportedOp imported;
  WorkloadOp& op = imported.op;
  op.rank = trace.rank;
  op.op = collective->op;
  const std::string dtype = text_argument(call, "dtype", where);
  const auto type = data_type_of_torch(dtype);
  if (!type)
    throw_bad_input(where, fmt::format("dtype {} is not one collbench replays", show_value(dtype)));
  op.dtype = *type;
  op.comm = process_group(call, trace, where, session);
  const int ranks = session.communicators().size_of(op.comm);
  set_sizes(call, *collective, ranks, where, op);
  set_arguments(call, ranks, where, options, session, op);
  note_count_rule(*collective, session);
  if (const auto seq = call.args.find("Seq"); seq != call.args.end() && seq->is_number_integer()) {
    op.seq = seq->get<std::int64_t>();
    imported.has_seq = !op.peer;
  }
  op.where = where;
  imported.times.issue_ns = to_ns(trace, call.ts_us);
  const auto external_id = call.args.find("External id");
  const auto gpu = external_id != call.args.end() && external_id->is_number_integer()
                       ? trace.gpu.find(external_id->get<std::int64_t>())
                       : trace.gpu.end();
  if (gpu != trace.gpu.end()) {
    imported.times.start_ns = to_ns(trace, gpu->second.start_us);
    imported.times.end_ns = to_ns(trace, gpu->second.end_us);
    imported.stream_key = gpu->second.stream;
  }
  return imported;
}

// Calls without a kernel of their own, closed by an nccl:coalesced range on their thread, ran as
// one group: they take the range's kernel time and stream.
void group_coalesced_calls(const KinetoTrace& trace, const std::vector<double>& issued_us,
                           const std::vector<std::int64_t>& threads, std::vector<ImportedOp>& ops) {
  std::unordered_map<std::int64_t, std::vector<std::size_t>> waiting;  // per thread
  std::size_t next_end = 0;
  std::int64_t next_group = 0;
  const auto close_until = [&](double until_us) {
    for (;
         next_end < trace.coalesced_ends.size() && trace.coalesced_ends[next_end].ts_us <= until_us;
         ++next_end) {
      const KinetoCoalescedEnd& end = trace.coalesced_ends[next_end];
      std::vector<std::size_t>& members = waiting[end.thread];
      const auto gpu = trace.gpu.find(end.external_id);
      for (const std::size_t member : members) {
        ops[member].group_key = next_group;
        if (gpu == trace.gpu.end()) continue;
        ops[member].times.start_ns = to_ns(trace, gpu->second.start_us);
        ops[member].times.end_ns = to_ns(trace, gpu->second.end_us);
        ops[member].stream_key = gpu->second.stream;
      }
      if (!members.empty()) ++next_group;
      members.clear();
    }
  };
  for (std::size_t i = 0; i < ops.size(); ++i) {
    close_until(issued_us[i]);
    std::vector<std::size_t>& members = waiting[threads[i]];
    if (ops[i].times.start_ns) {
      members.clear();  // a call with its own kernel: the ones before ran alone
    } else {
      members.push_back(i);
    }
  }
  close_until(INFINITY);
}

}  // namespace

std::vector<ImportedOp> kineto_rank_ops(const KinetoTrace& trace, const ImportOptions& options,
                                        ImportSession& session) {
  std::vector<ImportedOp> ops;
  std::vector<double> issued_us;
  std::vector<std::int64_t> threads;
  for (const KinetoCall& call : trace.calls) {
    std::optional<ImportedOp> op = convert_call(trace, call, options, session);
    if (!op) continue;
    ops.push_back(std::move(*op));
    issued_us.push_back(call.ts_us);
    threads.push_back(call.thread);
  }
  group_coalesced_calls(trace, issued_us, threads, ops);
  for (ImportedOp& op : ops) {
    if (op.stream_key.empty()) {  // no kernel recorded: the process group's own stream
      op.stream_key = fmt::format("process group stream of communicator {}", op.op.comm);
    }
  }
  move_single_point_to_point_to_pairs(ops, session);
  return ops;
}

}  // namespace collbench::replay
