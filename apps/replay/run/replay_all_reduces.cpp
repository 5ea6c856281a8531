// The hand-built all-reduce instances of a replay.
#include "run/replay_all_reduces.hpp"

#include <fmt/format.h>

#include <map>
#include <set>
#include <utility>

#include "plan/handbuilt_selection.hpp"
#include "plan/registry_op.hpp"
#include "run/rank_replayer.hpp"

namespace collbench::replay {

struct HandbuiltAllReduces::Instance {
  CaseShape shape{};
  std::vector<RankContext> contexts;  // this process's members, in local rank order
  std::vector<RankBuffers> buffers;
  std::vector<std::pair<RankReplayer*, std::size_t>> members;  // each one's replayer and ordinal
  std::unique_ptr<CollectiveAlgorithm> algorithm;
  std::vector<BoundAllReduce> bound;  // by member
};

namespace {

CaseShape shape_of(const WorkloadOps& workload, const WorkloadOp& op,
                   BufferRegistration registration) {
  CaseShape shape{};
  shape.spec = &registry_entry(op.op);
  shape.counts = op_element_counts(op, workload.comm_size(op), workload.comm_rank(op));
  shape.type = op.dtype;
  shape.op = op.redop.value_or(ReduceOp::sum);
  shape.root = -1;
  shape.nranks = workload.comm_size(op);
  shape.in_place = false;  // every op has its own send and receive places
  shape.registration = registration;
  return shape;
}

// An algorithm whose waiting kernels hold their SMs (its capabilities say) could starve another
// instance on a second stream of the same GPU: all_reduces on several streams of a rank are
// refused for it, as the training step keeps such algorithms off its lanes.
// Decided from the whole workload, so every process refuses alike.
void refuse_concurrent_instances(const AlgorithmChoice& algo, const WorkloadOps& workload,
                                 const HandbuiltSelection& selection) {
  if (algo.entry->capabilities.concurrent_instances) return;
  for (std::size_t rank = 0; rank < workload.by_rank.size(); ++rank) {
    std::set<int> streams;
    for (const WorkloadOp& op : workload.by_rank[rank]) {
      if (selection.takes(op)) streams.insert(op.stream);
    }
    if (streams.size() > 1) {
      throw UnsupportedCombination(fmt::format(
          "{}'s kernels hold their SMs while they wait, and rank {} issues all_reduce ops on {} "
          "streams that may run at once",
          algo.name(), rank, streams.size()));
    }
  }
}

}  // namespace

HandbuiltAllReduces::HandbuiltAllReduces(
    const AlgorithmChoice& algo, BufferRegistration registration, const WorkloadOps& workload,
    const std::vector<std::unique_ptr<RankReplayer>>& replayers,
    const std::function<bool(bool)>& all_agree) {
  // Peer kernels read and write their peers' memory through mappings of their own, which NCCL's
  // registration does not make (collbench skips them on registered buffers alike).
  if (registration != BufferRegistration::none && !algo.entry->capabilities.registered_buffers) {
    throw UnsupportedCombination(
        fmt::format("{} maps its peers' memory itself and does not run on NCCL-registered "
                    "buffers (--register {})",
                    algo.name(), name_of(registration)));
  }
  const HandbuiltSelection selection = select_handbuilt_all_reduces(workload);
  if (selection.taken.empty()) {
    throw UnsupportedCombination(fmt::format(
        "no all_reduce op of the workload can run on {} ({} on a communicator of one rank, {} "
        "inside an NCCL group)",
        algo.name(), selection.single_rank, selection.grouped));
  }
  if (selection.grouped > 0) {
    kept_note_ = fmt::format(
        "{} all_reduce op(s) issued inside an NCCL group stay NCCL's (a hand-built launch there "
        "would run before the group's NCCL calls start)",
        selection.grouped);
  }
  refuse_concurrent_instances(algo, workload, selection);
  // (communicator, sequence) -> instance: the map's order is the order every process sets up in.
  std::map<OpKey, std::unique_ptr<Instance>> by_key;
  for (const std::unique_ptr<RankReplayer>& replayer : replayers) {
    const std::vector<WorkloadOp>& ops = replayer->ops();
    for (std::size_t ordinal = 0; ordinal < ops.size(); ++ordinal) {
      const WorkloadOp& op = ops[ordinal];
      // NCCL's call stays on a communicator of one rank (a copy) and inside a group.
      if (!selection.takes(op)) continue;
      std::unique_ptr<Instance>& instance = by_key[{op.comm, op.seq}];
      if (!instance) {
        instance = std::make_unique<Instance>();
        instance->shape = shape_of(workload, op, registration);
      }
      instance->contexts.push_back(replayer->op_context(ordinal));
      instance->buffers.push_back(replayer->op_buffers(ordinal));
      instance->members.emplace_back(replayer.get(), ordinal);
    }
  }
  // Made (collective on each communicator: peer checks) before any process may give up, then
  // agreed on: a process that stopped here would leave its peers in the next set-up.
  std::string refusal;
  for (auto& [key, instance] : by_key) {
    instance->algorithm = algo.make(instance->contexts);
    const WorkloadOp& op = instance->members.front().first->ops()[instance->members.front().second];
    const std::string why = instance->algorithm->unsupported_reason(instance->shape);
    if (refusal.empty() && !why.empty())
      refusal = fmt::format("{} cannot run {}: {}", algo.name(), describe_op(workload, op), why);
  }
  if (!all_agree(refusal.empty())) {
    throw UnsupportedCombination(
        refusal.empty() ? fmt::format("{} cannot run another process's all_reduce ops", algo.name())
                        : refusal);
  }
  for (auto& [key, instance] : by_key) {
    instance->algorithm->prepare(instance->contexts, instance->buffers, instance->shape);
    for (std::size_t m = 0; m < instance->members.size(); ++m) {
      instance->bound.push_back({instance->algorithm.get(), &instance->shape, instance->contexts[m],
                                 instance->buffers[m]});
    }
    instances_.push_back(std::move(instance));
  }
  // Bound once every instance is set up: `bound` no longer moves.
  for (const std::unique_ptr<Instance>& instance : instances_) {
    for (std::size_t m = 0; m < instance->members.size(); ++m) {
      instance->members[m].first->bind_all_reduce(instance->members[m].second, &instance->bound[m]);
    }
  }
}

HandbuiltAllReduces::~HandbuiltAllReduces() = default;

void HandbuiltAllReduces::release() {
  for (const std::unique_ptr<Instance>& instance : instances_) instance->algorithm->release();
}

void HandbuiltAllReduces::request_abort() noexcept {
  for (const std::unique_ptr<Instance>& instance : instances_) {
    if (instance->algorithm) instance->algorithm->request_abort();
  }
}

void HandbuiltAllReduces::check_health() const {
  for (const std::unique_ptr<Instance>& instance : instances_) instance->algorithm->check_health();
}

}  // namespace collbench::replay
