// Rescaling by replaying recorded replicas on new ones.
#include "rescale/rescale_workload.hpp"

#include <fmt/format.h>

#include <map>

#include "core/errors.hpp"
#include "rescale/rescale_rules.hpp"
#include "workload/workload_reader.hpp"

namespace collbench::replay {
namespace {

struct Plan {
  ParallelGrid grid;
  int world_size = 0;     // N'
  int data_parallel = 0;  // D'
  std::vector<Communicator> communicators;
  std::map<std::pair<int, int>, int> new_id;  // (recorded id, new replica or 0) -> new id
};

std::vector<int> block(int first, int count, int step) {
  std::vector<int> ranks;
  for (int i = 0; i < count; ++i) ranks.push_back(first + i * step);
  return ranks;
}

void add_copy(Plan& plan, const Communicator& recorded, int replica, std::vector<int> ranks) {
  const int id = static_cast<int>(plan.communicators.size());
  std::vector<std::string> names = recorded.names;
  names.push_back(fmt::format("rescaled from communicator {}", recorded.id));
  plan.communicators.push_back({id, std::move(ranks), std::move(names)});
  plan.new_id[{recorded.id, replica}] = id;
}

// Each recorded communicator's copies: the world and each DP group once (with D' ranks), each TP
// group once per new replica that replays its replica.
void plan_communicators(const CommunicatorTable& recorded, Plan& plan) {
  const int t_size = plan.grid.tensor_parallel;
  for (const Communicator& communicator : recorded.all()) {
    const GridPlace& place = plan.grid.places[static_cast<std::size_t>(communicator.id)];
    if (place.role == GridRole::world) {
      add_copy(plan, communicator, 0, block(0, plan.world_size, 1));
    } else if (place.role == GridRole::data_parallel) {
      add_copy(plan, communicator, 0, block(place.index, plan.data_parallel, t_size));
    } else {
      for (int replica = place.index; replica < plan.data_parallel;
           replica += plan.grid.data_parallel) {
        add_copy(plan, communicator, replica, block(replica * t_size, t_size, 1));
      }
    }
  }
}

// Rewrites `op` (of recorded replica d) as new replica `replica`'s; returns why it cannot be.
std::optional<std::string> rewrite(WorkloadOp& op, int replica, const CommunicatorTable& recorded,
                                   const Plan& plan, bool& rounded) {
  const int t_size = plan.grid.tensor_parallel;
  const GridPlace& place = plan.grid.places[static_cast<std::size_t>(op.comm)];
  const int old_size = recorded.size_of(op.comm);
  const int key = place.role == GridRole::tensor_parallel ? replica : 0;
  const int new_comm = plan.new_id.at({op.comm, key});
  if (place.role != GridRole::tensor_parallel) {
    if (auto refusal = rescale_op(
            op, old_size,
            static_cast<int>(plan.communicators[static_cast<std::size_t>(new_comm)].ranks.size()),
            rounded)) {
      return refusal;
    }
  }
  op.rank = replica * t_size + op.rank % t_size;
  op.comm = new_comm;
  op.times = {};
  return std::nullopt;
}

void note_rescaling(WorkloadHeader& header, const Plan& plan, bool rounded) {
  const ParallelGrid& grid = plan.grid;
  header.assumptions.push_back(fmt::format(
      "rescaled: from {} ranks ({} data-parallel x {} tensor-parallel) to {} ({} x {}); "
      "tensor-parallel groups kept whole, data-parallel groups from {} to {} ranks",
      grid.world_size, grid.data_parallel, grid.tensor_parallel, plan.world_size,
      plan.data_parallel, grid.tensor_parallel, grid.data_parallel, plan.data_parallel));
  header.assumptions.push_back(fmt::format(
      "rescaled ranks: rank d*{0}+t replays recorded rank (d mod {1})*{0}+t; 'where' names the "
      "recorded op",
      grid.tensor_parallel, grid.data_parallel));
  header.assumptions.push_back(fmt::format(
      "rescaled counts: on data-parallel groups and the world a collective keeps its whole buffer: "
      "all_gather, reduce_scatter, alltoall, gather and scatter counts scale by {}/{}{}",
      grid.data_parallel, plan.data_parallel,
      rounded ? ", rounded up where uneven (as FSDP pads)" : ""));
  header.assumptions.push_back("rescaled times: left out (they belong to the recorded ranks)");
  header.world_size = plan.world_size;
  header.time_origin_ns.reset();
  header.rescaled = RescaleRecord{grid.world_size, plan.world_size, grid.tensor_parallel,
                                  grid.data_parallel, plan.data_parallel};
}

// The ops of new replicas cycle * D ... cycle * D + D - 1, in new rank order.
template <typename Visit>
void for_each_new_op(const std::string& path, const Plan& plan, int cycle, Visit visit) {
  WorkloadReader reader(path);
  while (const WorkloadOp* op = reader.next()) {
    const int replica = cycle * plan.grid.data_parallel + op->rank / plan.grid.tensor_parallel;
    if (replica < plan.data_parallel) visit(*op, replica, reader.context());
  }
}

}  // namespace

RescaleOutcome rescale_workload(const std::string& path, int world_size, WorkloadWriter& writer) {
  WorkloadReader first(path);
  Plan plan;
  plan.grid = find_parallel_grid(first.communicators(), first.header().world_size);
  if (world_size < 1 || world_size % plan.grid.tensor_parallel != 0) {
    throw UsageError(
        fmt::format("--ranks {}: not a multiple of the {} ranks of a tensor-parallel "
                    "group",
                    world_size, plan.grid.tensor_parallel));
  }
  plan.world_size = world_size;
  plan.data_parallel = world_size / plan.grid.tensor_parallel;
  plan_communicators(first.communicators(), plan);
  bool rounded = false;
  for_each_new_op(path, plan, 0, [&](WorkloadOp op, int replica, const LineContext& context) {
    if (auto refusal = rewrite(op, replica, first.communicators(), plan, rounded))
      context.fail("cannot rescale: " + *refusal);
  });
  WorkloadHeader header = first.header();
  note_rescaling(header, plan, rounded);
  writer.write_header(header);
  for (const Communicator& communicator : plan.communicators)
    writer.write_communicator(communicator);
  const int cycles = (plan.data_parallel + plan.grid.data_parallel - 1) / plan.grid.data_parallel;
  for (int cycle = 0; cycle < cycles; ++cycle) {
    for_each_new_op(path, plan, cycle, [&](WorkloadOp op, int replica, const LineContext&) {
      rewrite(op, replica, first.communicators(), plan, rounded);
      writer.write_op(op);
    });
  }
  return {plan.grid, plan.data_parallel};
}

}  // namespace collbench::replay
