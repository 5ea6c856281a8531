// NCCL log import: survey, communicators, then ops with the log's missing group boundaries
// inferred from runs of send/recv lines that both sides agree on.
#include "import/nccl_log_import.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>

#include "core/errors.hpp"
#include "import/import_session.hpp"
#include "import/nccl_enums.hpp"
#include "import/nccl_log_communicators.hpp"
#include "import/nccl_log_groups.hpp"
#include "import/rank_numbering.hpp"
#include "io/path_names.hpp"
#include "io/text_input.hpp"
#include "workload/input_error.hpp"

namespace collbench::replay {
namespace {

// One log line in source-location form.
std::string place(const ProcessLog& log, std::uint64_t line) {
  return fmt::format("{}:{}", log.label, line);
}

void require_one_process(const std::string& text, ProcessLog& log, const std::string& where) {
  const auto process = nccl_log_process(text);
  if (!process) return;
  if (log.process.empty()) log.process = *process;
  if (*process != log.process) {
    throw_bad_input(where, fmt::format("a line of process {} in the log of {} (one log per "
                                       "process: NCCL_DEBUG_FILE=...%h.%p.log)",
                                       show_value(*process), show_value(log.process)));
  }
}

// The op a log line describes, without its communicator's id (known after the survey).
ImportedOp convert_op(const NcclOpLine& line, const std::string& where, ImportSession& session) {
  ImportedOp imported;
  WorkloadOp& op = imported.op;
  const auto kind = replay_op_of_nccl_name(line.name);
  if (!kind)
    throw_bad_input(where,
                    fmt::format("op {} is not one collbench replays", show_value(line.name)));
  op.op = *kind;
  const auto type = data_type_of_nccl(line.datatype);
  if (!type) throw_bad_input(where, nccl_type_problem(line.datatype));
  op.dtype = *type;
  op.count = line.count;
  const ReplayOpSpec& spec = spec_of(op.op);
  if (spec.reduces) {
    op.redop = reduce_op_of_nccl(line.redop);
    if (!op.redop) {
      if (line.redop < kNcclBuiltinOps)
        throw_bad_input(where, fmt::format("op {} is no ncclRedOp_t", line.redop));
      session.assume(
          "reductions: ops from 5 on are ncclRedOpCreatePreMulSum scalings, replayed as sum");
      op.redop = ReduceOp::sum;
    }
  }
  if (line.root < 0 || (line.nranks > 0 && line.root >= line.nranks)) {
    throw_bad_input(where, fmt::format("root {} is not a rank of a communicator of {}", line.root,
                                       line.nranks));
  }
  if (spec.rooted) op.root = line.root;
  if (spec.point_to_point) op.peer = line.root;  // Send/Recv lines print the peer as root
  op.where = where;
  imported.stream_key = line.stream;
  return imported;
}

// What the import needs before writing anything: the log's process, memberships, version and
// settings, every op checked, and its sends and receives in `groups` (numbered as the log's
// `log_index`, their communicators by `comm_numbers` of the keys all processes share).
ProcessLog survey_log(const std::string& path, int log_index, ImportSession& session,
                      InferredGroups& groups, std::map<std::string, int>& comm_numbers) {
  ProcessLog log{path, base_name(path), "", {}, -1};
  TextInput input(path);
  ProcessHandles handles;
  PointToPointRuns runs;
  std::string text;
  while (input.next_line(text)) {
    const std::string where = place(log, input.line_number());
    const NcclLogLine line = parse_nccl_log_line(text, where);
    if (line.kind == NcclLogLine::Kind::other) continue;
    require_one_process(text, log, where);
    WorkloadHeader& header = session.header();
    if (line.kind == NcclLogLine::Kind::version && !header.nccl_version)
      header.nccl_version = line.version;
    if (line.kind == NcclLogLine::Kind::setting) {
      header.nccl_env.emplace(line.setting_name, line.setting_value);  // the first one shown
    }
    if (line.kind == NcclLogLine::Kind::init) {
      const std::string& key = handles.add(line.init, where);
      if (std::none_of(log.memberships.begin(), log.memberships.end(),
                       [&](const Membership& known) { return known.key == key; })) {
        log.memberships.push_back({key, line.init.rank, line.init.nranks, where});
      }
    }
    if (line.kind == NcclLogLine::Kind::op) {
      const std::string* key = handles.key_of(line.op.comm);
      if (key == nullptr) {
        throw_bad_input(where, fmt::format("comm {} has no INIT line before it in this log "
                                           "(NCCL_DEBUG_SUBSYS must include INIT)",
                                           show_value(line.op.comm)));
      }
      // Refuses bad values before anything is written.
      const ImportedOp imported = convert_op(line.op, where, session);
      if (!imported.op.peer) {
        runs.end_run();
        continue;
      }
      const auto member = std::find_if(log.memberships.begin(), log.memberships.end(),
                                       [&](const Membership& known) { return known.key == *key; });
      const auto number = comm_numbers.emplace(*key, static_cast<int>(comm_numbers.size()));
      groups.add(log_index, runs.run_of(line.thread, line.op), number.first->second,
                 member->comm_rank, *imported.op.peer, imported.op.op == ReplayOp::send);
    }
  }
  if (log.process.empty())
    throw_bad_input(log.label, "no NCCL INFO line: not an NCCL log (NCCL_DEBUG=INFO)");
  return log;
}

// The buffered sends and receives of one run (nccl_log_groups.hpp), written as one group when the
// run settled as one.
class PointToPointRun {
 public:
  bool is(std::size_t run) const { return !ops_.empty() && run == run_; }
  void add(std::size_t run, ImportedOp op) {
    run_ = run;
    ops_.push_back(std::move(op));
  }
  void flush(const InferredGroups& groups, int log, RankNumbering& numbering,
             WorkloadWriter& writer, std::int64_t& next_group_key) {
    if (ops_.empty()) return;
    const std::optional<std::int64_t> group =
        groups.grouped(log, run_) ? std::optional<std::int64_t>(next_group_key++) : std::nullopt;
    for (ImportedOp& op : ops_) {
      op.group_key = group;
      writer.write_op(numbering.number(op));
    }
    ops_.clear();
  }

 private:
  std::size_t run_ = 0;
  std::vector<ImportedOp> ops_;
};

ImportedOp resolve_op(const NcclOpLine& line, const ProcessHandles& handles, const ProcessLog& log,
                      const std::string& where, ImportSession& session) {
  const std::string* key = handles.key_of(line.comm);
  const std::optional<int> comm = key != nullptr ? session.find_communicator(*key) : std::nullopt;
  if (!comm)
    throw_bad_input(where,
                    fmt::format("comm {} has no INIT line before it", show_value(line.comm)));
  const int size = session.communicators().size_of(*comm);
  if (line.nranks != 0 && line.nranks != size) {
    throw_bad_input(where, fmt::format("[nranks={}] on {} of {} ranks", line.nranks, *key, size));
  }
  ImportedOp imported = convert_op(line, where, session);
  imported.op.rank = log.rank;
  imported.op.comm = *comm;
  return imported;
}

void emit_log(const ProcessLog& log, int log_index, const InferredGroups& groups,
              ImportSession& session, RankNumbering& numbering, WorkloadWriter& writer) {
  TextInput input(log.path);
  ProcessHandles handles;
  PointToPointRuns runs;
  PointToPointRun run;
  std::int64_t next_group_key = 0;
  std::string text;
  while (input.next_line(text)) {
    const std::string where = place(log, input.line_number());
    const NcclLogLine line = parse_nccl_log_line(text, where);
    if (line.kind == NcclLogLine::Kind::init) handles.add(line.init, where);
    if (line.kind != NcclLogLine::Kind::op) continue;
    ImportedOp imported = resolve_op(line.op, handles, log, where, session);
    if (!imported.op.peer) {
      run.flush(groups, log_index, numbering, writer, next_group_key);
      runs.end_run();
      writer.write_op(numbering.number(imported));
      continue;
    }
    const std::size_t index = runs.run_of(line.thread, line.op);
    if (!run.is(index)) run.flush(groups, log_index, numbering, writer, next_group_key);
    run.add(index, std::move(imported));
  }
  run.flush(groups, log_index, numbering, writer, next_group_key);
}

void note_what_the_log_lacks(ImportSession& session) {
  session.assume(
      "issue order: each communicator's ops in the order of their log lines (opCount "
      "is no sequence number: 0 for every op on one NVLink node)");
  session.assume(
      "groups: the log has no ncclGroupStart/End boundaries; consecutive send/recv "
      "lines of one thread on one communicator and stream, with no other op between, "
      "are taken as one group where their peers' matching lines are grouped alike, "
      "else issued one by one");
  session.assume(
      "streams: waits between streams are not in the log; ops on different streams "
      "are ordered only by their communicators");
  session.assume("times: the log records none");
  if (session.header().nccl_env.empty()) {
    session.assume(
        "NCCL_* settings: none in the log (NCCL prints them with "
        "NCCL_DEBUG_SUBSYS=ENV)");
  }
}

}  // namespace

void import_nccl_logs(const std::vector<std::string>& paths, const ImportOptions& options,
                      WorkloadWriter& writer) {
  if (options.redop) throw UsageError("--redop: NCCL's log records every op's reduction");
  std::vector<std::string> names;
  for (const std::string& path : paths) names.push_back(base_name(path));
  ImportSession session("nccl-log", names);
  std::vector<ProcessLog> logs;
  InferredGroups groups(paths.size());
  std::map<std::string, int> comm_numbers;
  for (const std::string& path : paths) {
    logs.push_back(survey_log(path, static_cast<int>(logs.size()), session, groups, comm_numbers));
  }
  groups.settle();
  assemble_communicators(logs, session);
  note_what_the_log_lacks(session);
  session.header().world_size = static_cast<int>(logs.size());
  session.write_preamble(writer);
  // In rank order; each log keeps the index its sends and receives have in `groups`.
  std::vector<int> order(logs.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    return logs[static_cast<std::size_t>(a)].rank < logs[static_cast<std::size_t>(b)].rank;
  });
  RankNumbering numbering(session.communicators(), std::nullopt);
  for (const int index : order)
    emit_log(logs[static_cast<std::size_t>(index)], index, groups, session, numbering, writer);
}

}  // namespace collbench::replay
