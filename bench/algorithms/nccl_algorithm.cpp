// NCCL as an algorithm: nothing to prepare, one group per iteration.
#include "algorithms/nccl_algorithm.hpp"

#include "core/errors.hpp"
#include "runtime/cuda_resources.hpp"
#include "runtime/nccl_group.hpp"

namespace collbench {
namespace {

class NcclAlgorithm final : public CollectiveAlgorithm {
 public:
  std::string_view name() const override { return "nccl"; }
  std::string unsupported_reason(const CaseShape& shape) const override {
    if (shape.in_place && shape.spec->in_place == InPlaceLayout::unsupported) {
      return "in-place is not defined for " + std::string(shape.spec->name);
    }
    return {};
  }
  void prepare(const std::vector<RankContext>&, const std::vector<RankBuffers>&,
               const CaseShape&) override {}
  void launch(const std::vector<RankContext>& ranks, const std::vector<RankBuffers>& buffers,
              const CaseShape& shape, int aggregate) override {
    launch_nccl_group(ranks, buffers, shape, aggregate);
  }
};

}  // namespace

void launch_nccl_group(const std::vector<RankContext>& ranks,
                       const std::vector<RankBuffers>& buffers, const CaseShape& shape,
                       int aggregate) {
  NcclGroupScope group;  // closed on every path, so a failed call leaves no group open
  for (int repeat = 0; repeat < aggregate; ++repeat) {
    for (std::size_t local = 0; local < ranks.size(); ++local) {
      const RankContext& rank = ranks[local];
      ScopedDevice on(rank.device, rank.rank);
      shape.spec->launch_nccl({buffers[local].send, buffers[local].recv, shape.counts.param,
                               shape.type, shape.op, shape.root, rank.rank, shape.nranks, rank.comm,
                               rank.stream, shape.traffic});
    }
  }
  group.end();
}

std::unique_ptr<CollectiveAlgorithm> make_nccl_algorithm(const std::vector<RankContext>&) {
  return std::make_unique<NcclAlgorithm>();
}

}  // namespace collbench
