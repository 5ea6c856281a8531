// NCCL's enum values (nccl.h: ncclDataType_t, ncclRedOp_t) and the op names of its log lines.
#include "import/nccl_enums.hpp"

#include <fmt/format.h>

#include <array>
#include <utility>

namespace collbench::replay {
namespace {

constexpr std::array<std::pair<std::string_view, ReplayOp>, 10> kOpNames = {{
    {"AllReduce", ReplayOp::all_reduce},
    {"AllGather", ReplayOp::all_gather},
    {"ReduceScatter", ReplayOp::reduce_scatter},
    {"Broadcast", ReplayOp::broadcast},
    {"Reduce", ReplayOp::reduce},
    {"AlltoAll", ReplayOp::alltoall},
    {"Gather", ReplayOp::gather},
    {"Scatter", ReplayOp::scatter},
    {"Send", ReplayOp::send},
    {"Recv", ReplayOp::recv},
}};

// ncclInt8 = 0 ... ncclBfloat16 = 9, in collbench's DataType order.
constexpr std::array<DataType, 10> kTypes = {
    DataType::int8,   DataType::uint8, DataType::int32,   DataType::uint32,  DataType::int64,
    DataType::uint64, DataType::half,  DataType::float32, DataType::float64, DataType::bfloat16};

constexpr std::array<ReduceOp, kNcclBuiltinOps> kOps = {
    ReduceOp::sum, ReduceOp::prod, ReduceOp::max, ReduceOp::min, ReduceOp::avg};

}  // namespace

std::optional<ReplayOp> replay_op_of_nccl_name(std::string_view name) {
  for (const auto& [nccl_name, op] : kOpNames) {
    if (nccl_name == name) return op;
  }
  return std::nullopt;
}

std::optional<DataType> data_type_of_nccl(int value) {
  if (value < 0 || value >= static_cast<int>(kTypes.size())) return std::nullopt;
  return kTypes[static_cast<std::size_t>(value)];
}

std::string nccl_type_problem(int value) {
  if (value == 10) return "datatype 10 (ncclFloat8e4m3) is not one collbench replays";
  if (value == 11) return "datatype 11 (ncclFloat8e5m2) is not one collbench replays";
  return fmt::format("datatype {} is no ncclDataType_t collbench knows (0-9)", value);
}

std::optional<ReduceOp> reduce_op_of_nccl(int value) {
  if (value < 0 || value >= kNcclBuiltinOps) return std::nullopt;
  return kOps[static_cast<std::size_t>(value)];
}

}  // namespace collbench::replay
