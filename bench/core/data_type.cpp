// The table of element types and reduction operations.
#include "core/data_type.hpp"

#include <fmt/format.h>

#include <array>

#include "core/errors.hpp"

namespace collbench {
namespace {

struct TypeInfo {
  DataType type;
  const char* name;
  const char* alias;  // nccl-tests' spelling
  std::size_t size;
  ncclDataType_t nccl;
  bool floating;
};

constexpr std::array<TypeInfo, 10> kTypes = {{
    {DataType::int8, "int8", "int8", 1, ncclInt8, false},
    {DataType::uint8, "uint8", "uint8", 1, ncclUint8, false},
    {DataType::int32, "int32", "int32", 4, ncclInt32, false},
    {DataType::uint32, "uint32", "uint32", 4, ncclUint32, false},
    {DataType::int64, "int64", "int64", 8, ncclInt64, false},
    {DataType::uint64, "uint64", "uint64", 8, ncclUint64, false},
    {DataType::half, "half", "fp16", 2, ncclFloat16, true},
    {DataType::float32, "float", "fp32", 4, ncclFloat32, true},
    {DataType::float64, "double", "fp64", 8, ncclFloat64, true},
    {DataType::bfloat16, "bfloat16", "bf16", 2, ncclBfloat16, true},
}};

struct OpInfo {
  ReduceOp op;
  const char* name;
  ncclRedOp_t nccl;
};

constexpr std::array<OpInfo, 6> kOps = {{
    {ReduceOp::sum, "sum", ncclSum},
    {ReduceOp::prod, "prod", ncclProd},
    {ReduceOp::max, "max", ncclMax},
    {ReduceOp::min, "min", ncclMin},
    {ReduceOp::avg, "avg", ncclAvg},
    {ReduceOp::none, "none", ncclSum},
}};

const TypeInfo& info(DataType type) {
  return kTypes[static_cast<std::size_t>(type)];
}
const OpInfo& info(ReduceOp op) {
  return kOps[static_cast<std::size_t>(op)];
}

}  // namespace

std::string_view name_of(DataType type) {
  return info(type).name;
}
std::string_view name_of(ReduceOp op) {
  return info(op).name;
}
std::size_t size_of(DataType type) {
  return info(type).size;
}
ncclDataType_t nccl_type_of(DataType type) {
  return info(type).nccl;
}
ncclRedOp_t nccl_op_of(ReduceOp op) {
  return info(op).nccl;
}
bool is_floating(DataType type) {
  return info(type).floating;
}

const std::vector<DataType>& all_data_types() {
  static const std::vector<DataType> types = [] {
    std::vector<DataType> list;
    for (const TypeInfo& t : kTypes) list.push_back(t.type);
    return list;
  }();
  return types;
}

const std::vector<ReduceOp>& all_reduce_ops() {
  static const std::vector<ReduceOp> ops = {ReduceOp::sum, ReduceOp::prod, ReduceOp::max,
                                            ReduceOp::min, ReduceOp::avg};
  return ops;
}

DataType parse_data_type(std::string_view name) {
  for (const TypeInfo& t : kTypes) {
    if (name == t.name || name == t.alias) return t.type;
  }
  throw UsageError(fmt::format(
      "unknown data type '{}' (expected int8, uint8, int32, uint32, int64, uint64, half, float, "
      "double, bfloat16 or all)",
      name));
}

ReduceOp parse_reduce_op(std::string_view name) {
  for (ReduceOp op : all_reduce_ops()) {
    if (name == info(op).name) return op;
  }
  throw UsageError(
      fmt::format("unknown reduction op '{}' (expected sum, prod, max, min, avg or all)", name));
}

}  // namespace collbench
