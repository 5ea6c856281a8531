// Per-kind assumptions of the PyTorch importers.
#include "import/torch_notes.hpp"

#include <fmt/format.h>

namespace collbench::replay {

ReduceOp assumed_reduction(ReplayOp op, const ImportOptions& options, const std::string& source,
                           ImportSession& session) {
  const ReduceOp redop = options.redop.value_or(ReduceOp::sum);
  session.assume(fmt::format("reductions: {} records none; {} taken as {} ({})", source,
                             name_of(op), name_of(redop),
                             options.redop ? "--redop" : "--redop sets another"));
  return redop;
}

void note_count_rule(const TorchCollective& collective, ImportSession& session) {
  const std::string_view op = name_of(collective.op);
  switch (collective.count) {
    case TorchCount::input_gathered:
      session.assume(
          fmt::format("counts: {}'s count is its input's elements (NCCL's sendcount); "
                      "its output is that times the ranks",
                      op));
      break;
    case TorchCount::output_scattered:
      session.assume(
          fmt::format("counts: {}'s count is its output's elements (NCCL's recvcount); "
                      "its input is that times the ranks",
                      op));
      break;
    case TorchCount::exchanged:
      session.assume(
          "counts: all_to_all without recorded splits is alltoall, its count the input's "
          "elements over the ranks (NCCL's count per peer)");
      break;
    case TorchCount::one_float:
      session.assume("barrier: an all_reduce of one float, as ProcessGroupNCCL issues it");
      break;
    default:
      break;
  }
  if (collective.coalesced) {
    session.assume(
        fmt::format("coalesced calls: one {} of all their tensors' elements (NCCL "
                    "issues one per tensor, in one group)",
                    op));
  }
}

}  // namespace collbench::replay
