// Element types and reduction operations: names (as in the CSV), sizes and NCCL enums.
#pragma once

#include <nccl.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace collbench {

enum class DataType { int8, uint8, int32, uint32, int64, uint64, half, float32, float64, bfloat16 };
enum class ReduceOp { sum, prod, max, min, avg, none };

std::string_view name_of(DataType type);
std::string_view name_of(ReduceOp op);
std::size_t size_of(DataType type);
ncclDataType_t nccl_type_of(DataType type);
ncclRedOp_t nccl_op_of(ReduceOp op);  // not for ReduceOp::none
bool is_floating(DataType type);

const std::vector<DataType>& all_data_types();
// The reduction operations a user can ask for (none is implied for ops that do not reduce).
const std::vector<ReduceOp>& all_reduce_ops();

// Parse one name ("float", "bf16", "sum" ...); throw UsageError naming the bad value.
DataType parse_data_type(std::string_view name);
ReduceOp parse_reduce_op(std::string_view name);

}  // namespace collbench
