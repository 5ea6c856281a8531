// The table of replay operations and the element counts that follow from NCCL's count.
#include "workload/replay_op.hpp"

#include <array>

namespace collbench::replay {
namespace {

constexpr std::array<ReplayOpSpec, 11> kOps = {{
    {ReplayOp::all_reduce, "all_reduce", true, false, false, false},
    {ReplayOp::all_gather, "all_gather", false, false, false, false},
    {ReplayOp::reduce_scatter, "reduce_scatter", true, false, false, false},
    {ReplayOp::broadcast, "broadcast", false, true, false, false},
    {ReplayOp::reduce, "reduce", true, true, false, false},
    {ReplayOp::alltoall, "alltoall", false, false, false, false},
    {ReplayOp::alltoallv, "alltoallv", false, false, false, true},
    {ReplayOp::gather, "gather", false, true, false, false},
    {ReplayOp::scatter, "scatter", false, true, false, false},
    {ReplayOp::send, "send", false, false, true, false},
    {ReplayOp::recv, "recv", false, false, true, false},
}};

}  // namespace

const ReplayOpSpec& spec_of(ReplayOp op) {
  return kOps[static_cast<std::size_t>(op)];
}

std::string_view name_of(ReplayOp op) {
  return spec_of(op).name;
}

std::optional<ReplayOp> find_replay_op(std::string_view name) {
  for (const ReplayOpSpec& spec : kOps) {
    if (spec.name == name) return spec.op;
  }
  return std::nullopt;
}

std::string replay_op_names() {
  std::string names;
  for (const ReplayOpSpec& spec : kOps) {
    if (!names.empty()) names += ", ";
    names += spec.name;
  }
  return names;
}

BufferElements buffer_elements(ReplayOp op, std::uint64_t count, int comm_size, bool is_root) {
  const std::uint64_t all = count * static_cast<std::uint64_t>(comm_size);
  switch (op) {
    case ReplayOp::all_gather:
      return {count, all};
    case ReplayOp::reduce_scatter:
      return {all, count};
    case ReplayOp::alltoall:
      return {all, all};
    case ReplayOp::gather:
      return {count, is_root ? all : 0};
    case ReplayOp::scatter:
      return {is_root ? all : 0, count};
    case ReplayOp::send:
      return {count, 0};
    case ReplayOp::recv:
      return {0, count};
    default:
      return {count, count};  // all_reduce, broadcast, reduce; alltoallv: its totals
  }
}

}  // namespace collbench::replay
