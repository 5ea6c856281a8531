// The communicators of a workload with the lookups every stage needs: size, members, and a global
// rank's place in a communicator (its communicator rank) without a table per rank.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "workload/workload_records.hpp"

namespace collbench::replay {

class CommunicatorTable {
 public:
  CommunicatorTable() = default;
  explicit CommunicatorTable(std::vector<Communicator> communicators);

  void add(Communicator communicator);
  int count() const { return static_cast<int>(communicators_.size()); }
  const Communicator& at(int id) const { return communicators_.at(static_cast<std::size_t>(id)); }
  const std::vector<Communicator>& all() const { return communicators_; }
  int size_of(int id) const { return static_cast<int>(at(id).ranks.size()); }
  // The communicator rank of global rank `rank` in communicator `id`; -1 when not a member.
  int local_rank(int id, int rank) const;
  // "communicator 2 (ranks 0,2)" for messages.
  std::string describe(int id) const;

 private:
  std::vector<Communicator> communicators_;
  std::vector<std::vector<std::pair<int, int>>> by_global_;  // per communicator: (global, local)
};

}  // namespace collbench::replay
