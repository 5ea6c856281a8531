// One op as an importer reads it from a source, before the workload's numbering: its stream and
// group by the source's own names, its times on the source's clock, its sequence number only
// where the source records one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "workload/workload_records.hpp"

namespace collbench::replay {

// Instants on the source's clock in nanoseconds; the workload counts them from the time origin.
struct SourceTimes {
  std::optional<std::int64_t> issue_ns;
  std::optional<std::int64_t> start_ns;
  std::optional<std::int64_t> end_ns;
  std::optional<double> duration_us;
};

struct ImportedOp {
  // rank, comm, op, dtype, counts, redop, root, peer and where; seq only when has_seq.
  WorkloadOp op;
  bool has_seq = false;                   // the source's collective sequence number is in op.seq
  std::string stream_key;                 // the source's name of the op's stream
  std::optional<std::int64_t> group_key;  // ops with one key, next to each other: one group
  SourceTimes times;
};

}  // namespace collbench::replay
