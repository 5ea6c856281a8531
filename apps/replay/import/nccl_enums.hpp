// NCCL's names and enum values as its log prints them, in collbench's terms: op names
// ("AllReduce"), ncclDataType_t and ncclRedOp_t values.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/data_type.hpp"
#include "workload/replay_op.hpp"

namespace collbench::replay {

std::optional<ReplayOp> replay_op_of_nccl_name(std::string_view name);

// Nothing for a value collbench does not replay (NCCL's fp8 types) or no ncclDataType_t at all;
// nccl_type_problem says which.
std::optional<DataType> data_type_of_nccl(int value);
std::string nccl_type_problem(int value);

// ncclSum ... ncclAvg; values from ncclNumOps (5) on are ncclRedOpCreatePreMulSum's.
inline constexpr int kNcclBuiltinOps = 5;
std::optional<ReduceOp> reduce_op_of_nccl(int value);

}  // namespace collbench::replay
