// Flight Recorder import: groups and windows, notes, then ops.
#include "import/flight_recorder_import.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "check/ring_windows.hpp"
#include "import/flight_recorder_dump.hpp"
#include "import/flight_recorder_entries.hpp"
#include "import/import_session.hpp"
#include "import/rank_numbering.hpp"
#include "io/path_names.hpp"
#include "workload/input_error.hpp"

namespace collbench::replay {
namespace {

// What the first pass learns of every dump.
struct Survey {
  std::map<int, std::string> path_of_rank;
  std::map<std::string, FlightRecorderGroup> groups;         // from pg_config
  std::map<std::string, std::set<int>> ranks_seen;           // per group, ranks with entries of it
  std::map<std::string, std::map<int, RankWindow>> windows;  // per group, per rank
  std::map<int, std::int64_t> dropped;                       // per rank: entries its buffer dropped
};

void survey_dump(const FlightRecorderDump& dump, const std::string& path, Survey& survey,
                 ImportSession& session) {
  const auto [known, added] = survey.path_of_rank.emplace(dump.rank, path);
  if (!added)
    throw_bad_input(dump.label,
                    fmt::format("rank {} again (also {})", dump.rank, base_name(known->second)));
  WorkloadHeader& header = session.header();
  if (!header.nccl_version) header.nccl_version = dump.nccl_version;
  for (const auto& [name, group] : dump.groups) {
    const auto [other, first] = survey.groups.emplace(name, group);
    if (!first && other->second.ranks != group.ranks) {
      throw_bad_input(
          dump.label,
          fmt::format("process group {} has ranks {} here, {} in another dump", show_value(name),
                      fmt::join(group.ranks, ","), fmt::join(other->second.ranks, ",")));
    }
  }
  const bool dropped = !dump.entries.empty() && dump.entries.front().record_id > 0;
  if (dropped) survey.dropped[dump.rank] = dump.entries.front().record_id;
  for (const FlightRecorderEntry& entry : dump.entries) {
    survey.ranks_seen[entry.group_name].insert(dump.rank);
    RankWindow& window = survey.windows[entry.group_name][dump.rank];
    if (entry.created_ns) session.observe_time_ns(*entry.created_ns);
    if (window.first_epoch) continue;
    window.first_epoch = entry.collective_seq;
    window.first_is_collective = !entry.is_p2p && entry.profiling_name != "nccl:coalesced";
  }
}

// Registers every process group (pg_config, else the ranks that recorded it) and sets the world.
void register_groups(Survey& survey, ImportSession& session) {
  int world_size = survey.path_of_rank.empty() ? 0 : survey.path_of_rank.rbegin()->first + 1;
  for (const auto& [name, seen] : survey.ranks_seen) {
    if (survey.groups.count(name) == 0) {
      survey.groups[name] = {"", std::vector<int>(seen.begin(), seen.end())};
      session.assume(
          fmt::format("process group {}: no pg_config; its ranks are those whose dumps "
                      "hold its entries",
                      name));
    }
  }
  for (const auto& [name, group] : survey.groups) {
    world_size =
        std::max(world_size, *std::max_element(group.ranks.begin(), group.ranks.end()) + 1);
    std::vector<std::string> names{process_group_key(name)};
    if (!group.desc.empty()) names.push_back(group.desc);
    session.communicator(process_group_key(name), group.ranks, names, "pg_config");
  }
  session.header().world_size = world_size;
}

// Per group, the first epoch every member recorded whole (groups without one are left out).
std::map<std::string, std::int64_t> window_starts(Survey& survey, ImportSession& session) {
  std::map<std::string, std::int64_t> starts;
  for (const auto& [name, group] : survey.groups) {
    std::vector<RankWindow> members;
    for (const int rank : group.ranks) {
      RankWindow window = survey.windows[name][rank];
      window.dropped = survey.dropped.count(rank) > 0;
      members.push_back(window);
    }
    const auto start = common_window_start(members);
    if (!start && survey.ranks_seen[name].empty()) {
      starts[name] = 0;  // no rank recorded any of it: nothing to align
      continue;
    }
    if (!start) {
      session.assume(
          fmt::format("process group {}: left out; a rank's ring buffer dropped all its "
                      "entries, so the ranks share no window",
                      name));
      continue;
    }
    starts[name] = *start;
    if (*start > 0) {
      session.assume(
          fmt::format("process group {}: from collective {} on (epoch {}); ring buffers "
                      "dropped earlier entries on some ranks",
                      name, *start, *start));
    }
  }
  for (const auto& [rank, count] : survey.dropped) {
    session.assume(fmt::format(
        "ring buffer: rank {}'s dump starts at entry {} (earlier ones dropped)", rank, count));
  }
  return starts;
}

void require_every_rank(const Survey& survey, const std::vector<std::string>& paths,
                        int world_size) {
  std::vector<int> missing;
  for (int rank = 0; rank < world_size; ++rank) {
    if (survey.path_of_rank.count(rank) == 0) missing.push_back(rank);
  }
  if (missing.empty()) return;
  throw_bad_input(
      base_name(paths.front()),
      fmt::format("no dump of rank{} {} (the process groups hold ranks 0-{}: one dump per rank)",
                  missing.size() == 1 ? "" : "s", fmt::join(missing, ","), world_size - 1));
}

void note_what_flight_recorder_lacks(ImportSession& session) {
  session.assume("ranks: each dump's from its file name (dumps record none)");
  session.assume(
      "sequence numbers: collectives' collective_seq_id; sends and receives counted per "
      "peer in issue order");
  session.assume(
      "groups: send/recv entries sharing a p2p_seq_id, closed by an nccl:coalesced "
      "entry, are one group");
  session.assume(
      "streams: not recorded; each process group's collectives and batches on one "
      "stream, single sends and receives between two ranks on one of their own (as "
      "ProcessGroupNCCL issues them)");
  session.assume(
      "times: issue_us when the entry was created, duration_us its GPU time "
      "(duration_ms, with TORCH_NCCL_ENABLE_TIMING=1); no start instant");
  session.assume("NCCL_* settings: not in the dump");
}

}  // namespace

void import_flight_recorder(const std::vector<std::string>& paths, const ImportOptions& options,
                            WorkloadWriter& writer) {
  std::vector<std::string> names;
  for (const std::string& path : paths) names.push_back(base_name(path));
  ImportSession session("flight-recorder", names);
  note_what_flight_recorder_lacks(session);
  Survey survey;
  for (const std::string& path : paths)
    survey_dump(read_flight_recorder_dump(path), path, survey, session);
  register_groups(survey, session);
  require_every_rank(survey, paths, session.header().world_size);
  const std::map<std::string, std::int64_t> starts = window_starts(survey, session);
  for (const auto& [rank, path] : survey.path_of_rank) {  // the assumptions, before the header
    flight_recorder_rank_ops(read_flight_recorder_dump(path), starts, options, session);
  }
  session.write_preamble(writer);
  RankNumbering numbering(session.communicators(), session.header().time_origin_ns);
  for (const auto& [rank, path] : survey.path_of_rank) {
    for (ImportedOp& op :
         flight_recorder_rank_ops(read_flight_recorder_dump(path), starts, options, session)) {
      writer.write_op(numbering.number(op));
    }
  }
}

}  // namespace collbench::replay
