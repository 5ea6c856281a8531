// The check before any GPU work: reads a workload once, line by line, and refuses one that would
// deadlock or is inconsistent, with one line naming the place and the mismatch: a collective not
// every member issued, or issued with other sizes, types, reductions or roots; a send without its
// receive; a cycle in the dependency graph (issue order per stream, groups, recorded waits).
#pragma once

#include <cstdint>
#include <string>

#include "workload/workload_reader.hpp"

namespace collbench::replay {

struct CheckSummary {
  int world_size = 0;
  int communicators = 0;
  int ranks_with_ops = 0;
  std::uint64_t ops = 0;
  std::uint64_t collectives = 0;           // instances, each all its members' ops
  std::uint64_t point_to_point_pairs = 0;  // matched send/recv
  std::uint64_t groups = 0;                // ncclGroupStart/End on one rank
  std::size_t most_ops_held = 0;           // of one rank, at once: the reader's window
  std::size_t most_unmatched_held = 0;     // collectives and pairs waiting for a member at once
};

// Throws UsageError (exit 2) for a workload that must not run.
CheckSummary check_workload(const std::string& path, ReaderOptions options = {});

}  // namespace collbench::replay
