// Communicators of NCCL logs, matched across processes by commId (and split identity).
#include "import/nccl_log_communicators.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "workload/input_error.hpp"

namespace collbench::replay {
namespace {

struct Member {
  int comm_rank;
  std::size_t log;
  const Membership* membership;
};

struct KeyMembers {
  int nranks = 0;
  std::vector<Member> members;
};

void require_whole(const std::string& key, KeyMembers& found, const std::vector<ProcessLog>& logs) {
  std::sort(found.members.begin(), found.members.end(),
            [](const Member& a, const Member& b) { return a.comm_rank < b.comm_rank; });
  const Membership& first = *found.members.front().membership;
  for (std::size_t i = 1; i < found.members.size(); ++i) {
    if (found.members[i].comm_rank == found.members[i - 1].comm_rank) {
      throw_bad_input(found.members[i].membership->where,
                      fmt::format("{} rank {} is also in {}", key, found.members[i].comm_rank,
                                  logs[found.members[i - 1].log].label));
    }
  }
  if (static_cast<int>(found.members.size()) == found.nranks) return;
  std::vector<int> missing;
  for (int rank = 0, next = 0; rank < found.nranks; ++rank) {
    if (next < static_cast<int>(found.members.size()) && found.members[next].comm_rank == rank) {
      ++next;
    } else {
      missing.push_back(rank);
    }
  }
  throw_bad_input(first.where,
                  fmt::format("{} has {} ranks but {} of the logs given show it: its rank{} {} "
                              "(a process's log missing?)",
                              key, found.nranks, found.members.size(),
                              missing.size() == 1 ? "" : "s", fmt::join(missing, ",")));
}

// The communicator every log shows with all ranks: its ranks are the global ranks.
const std::string* world_key(const std::vector<std::string>& order,
                             const std::map<std::string, KeyMembers>& by_key, std::size_t logs) {
  for (const std::string& key : order) {
    const KeyMembers& found = by_key.at(key);
    if (static_cast<std::size_t>(found.nranks) == logs && found.members.size() == logs) return &key;
  }
  return nullptr;
}

void assign_global_ranks(std::vector<ProcessLog>& logs, const std::string* world,
                         const std::map<std::string, KeyMembers>& by_key, ImportSession& session) {
  if (world != nullptr) {
    for (const Member& member : by_key.at(*world).members) logs[member.log].rank = member.comm_rank;
    session.assume(fmt::format("global ranks: each process's rank in {}, which all {} logs show",
                               *world, logs.size()));
    return;
  }
  std::vector<std::size_t> by_name(logs.size());
  for (std::size_t i = 0; i < logs.size(); ++i) by_name[i] = i;
  std::sort(by_name.begin(), by_name.end(),
            [&](std::size_t a, std::size_t b) { return logs[a].label < logs[b].label; });
  for (std::size_t i = 0; i < by_name.size(); ++i) logs[by_name[i]].rank = static_cast<int>(i);
  session.assume("global ranks: no communicator spans every log; ranks follow the logs' names");
}

}  // namespace

const std::string& ProcessHandles::add(const NcclInitLine& init, const std::string& where) {
  std::string key;
  if (init.comm_id) {
    key = "commId " + *init.comm_id;
  } else {
    const std::string* parent = key_of(*init.parent);
    if (parent == nullptr) {
      throw_bad_input(where, fmt::format("a communicator split from comm {}, which no INIT line "
                                         "before introduces",
                                         show_value(*init.parent)));
    }
    key = fmt::format("{} / split {} color {}", *parent, init.split_count.value_or("?"),
                      init.color.value_or("?"));
  }
  return keys_[init.comm] = std::move(key);
}

const std::string* ProcessHandles::key_of(const std::string& handle) const {
  const auto found = keys_.find(handle);
  return found == keys_.end() ? nullptr : &found->second;
}

void assemble_communicators(std::vector<ProcessLog>& logs, ImportSession& session) {
  std::map<std::string, KeyMembers> by_key;
  std::vector<std::string> order;  // keys by first appearance
  for (std::size_t log = 0; log < logs.size(); ++log) {
    for (const Membership& membership : logs[log].memberships) {
      auto [found, added] = by_key.try_emplace(membership.key);
      if (added) {
        order.push_back(membership.key);
        found->second.nranks = membership.nranks;
      } else if (found->second.nranks != membership.nranks) {
        throw_bad_input(membership.where,
                        fmt::format("{} has {} ranks here, {} in another log", membership.key,
                                    membership.nranks, found->second.nranks));
      }
      found->second.members.push_back({membership.comm_rank, log, &membership});
    }
  }
  for (auto& [key, found] : by_key) require_whole(key, found, logs);
  assign_global_ranks(logs, world_key(order, by_key, logs.size()), by_key, session);
  std::vector<std::size_t> by_rank(logs.size());
  for (std::size_t i = 0; i < logs.size(); ++i) by_rank[static_cast<std::size_t>(logs[i].rank)] = i;
  for (const std::size_t log : by_rank) {
    for (const Membership& membership : logs[log].memberships) {
      std::vector<int> ranks;
      for (const Member& member : by_key.at(membership.key).members)
        ranks.push_back(logs[member.log].rank);
      session.communicator(membership.key, ranks, {membership.key}, membership.where);
    }
  }
}

}  // namespace collbench::replay
