// Seeds, patterns and rules of checked ops.
#include "plan/check_values.hpp"

#include "check/hash_mix.hpp"
#include "plan/registry_op.hpp"

namespace collbench::replay {
namespace {

// Fixed (the sweep's default): a replay checks the same values from run to run.
constexpr std::uint64_t kReplaySeed = 0x5eed;

std::uint64_t mix_in(std::uint64_t seed, std::int64_t value) {
  return hash_mix(seed ^ static_cast<std::uint64_t>(value));
}

}  // namespace

std::uint64_t op_seed(const WorkloadOp& op, int comm_rank) {
  std::uint64_t seed = mix_in(mix_in(kReplaySeed, op.comm), op.seq);
  if (spec_of(op.op).point_to_point) {
    const bool sends = op.op == ReplayOp::send;
    seed = mix_in(mix_in(seed, sends ? comm_rank : *op.peer), sends ? *op.peer : comm_rank);
  }
  return seed;
}

kernels::PatternParams op_pattern(const WorkloadOp& op, int comm_rank, int comm_size) {
  kernels::PatternParams params{};
  params.seed = op_seed(op, comm_rank);
  params.nranks = comm_size;
  params.root = op.root.value_or(0);
  if (op.op == ReplayOp::recv) params.root = *op.peer;
  params.block = op.count;
  params.type = static_cast<kernels::ElementType>(op.dtype);
  params.reduction =
      op.redop ? static_cast<kernels::Reduction>(*op.redop) : kernels::Reduction::none;
  return params;
}

kernels::OutputRule op_output_rule(const WorkloadOp& op) {
  if (op.op == ReplayOp::recv) return find_collective("broadcast").expected;
  return registry_entry(op.op).expected;
}

bool op_output_checked(const WorkloadOp& op, int comm_rank) {
  if (op.op == ReplayOp::send) return false;
  return !op_output_rule(op).root_only || op.root == comm_rank;
}

}  // namespace collbench::replay
