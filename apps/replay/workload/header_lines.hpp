// The workload's first lines: the header and the communicators, parsed and checked field by field.
#pragma once

#include <nlohmann/json.hpp>

#include "workload/line_context.hpp"
#include "workload/workload_records.hpp"

namespace collbench::replay {

// The most ranks a workload may name: far above any job, small enough for per-rank tables.
inline constexpr int kMaxWorldSize = 1 << 20;

WorkloadHeader parse_header_line(const nlohmann::json& line, const LineContext& context);

// `expected_id`: communicators are numbered 0, 1, ... in file order.
Communicator parse_communicator_line(const nlohmann::json& line, int expected_id, int world_size,
                                     const LineContext& context);

}  // namespace collbench::replay
