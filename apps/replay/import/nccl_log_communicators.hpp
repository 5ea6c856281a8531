// Which communicator an NCCL log line means, across processes: each process names a communicator
// by its own handle ("comm 0x32c5cd00"); its INIT line ties the handle to the commId all members
// share, or, for ncclCommSplit, to the parent's identity with the split count and color. The
// processes' memberships then give every communicator's ranks and each process its global rank.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "import/import_session.hpp"
#include "import/nccl_log_line.hpp"

namespace collbench::replay {

// One process's handles, as its INIT lines introduce them (a handle may be reused later).
class ProcessHandles {
 public:
  // The key of the communicator `init` introduces. Throws UsageError at `where` for a split of a
  // parent handle no INIT line introduced.
  const std::string& add(const NcclInitLine& init, const std::string& where);
  // Nothing for a handle no INIT line introduced.
  const std::string* key_of(const std::string& handle) const;

 private:
  std::unordered_map<std::string, std::string> keys_;
};

struct Membership {
  std::string key;
  int comm_rank = 0;
  int nranks = 0;
  std::string where;  // its INIT line
};

struct ProcessLog {
  std::string path;
  std::string label;                    // the file name, in source locations
  std::string process;                  // "host:pid"
  std::vector<Membership> memberships;  // in INIT order
  int rank = -1;                        // global, once assembled
};

// Gives every process its global rank (its rank in the communicator all of them share) and adds
// the communicators to the session in rank order. Throws UsageError for a communicator whose
// members do not add up: a missing log, a rank twice.
void assemble_communicators(std::vector<ProcessLog>& logs, ImportSession& session);

}  // namespace collbench::replay
