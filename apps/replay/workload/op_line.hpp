// One op line of a workload, parsed and checked on its own: types, ranges, membership of its
// communicator, and the fields its op needs (a reduction, a root, a peer, per-peer counts).
#pragma once

#include <nlohmann/json.hpp>

#include "workload/communicator_table.hpp"
#include "workload/line_context.hpp"
#include "workload/workload_records.hpp"

namespace collbench::replay {

// Fills `op` (reused between lines); sets context.source_where to the op's "where" first, so
// that every later message names the source location too.
void parse_op_line(const nlohmann::json& line, const CommunicatorTable& communicators,
                   int world_size, LineContext& context, WorkloadOp& op);

// The data type and reduction names of the format (collbench's: core/data_type.cpp).
DataType parse_dtype_name(const nlohmann::json& value, const LineContext& context);
ReduceOp parse_redop_name(const nlohmann::json& value, const LineContext& context);

}  // namespace collbench::replay
