// The per-op rescaling rules.
#include "rescale/rescale_rules.hpp"

#include <fmt/format.h>

namespace collbench::replay {

std::optional<std::string> rescale_op(WorkloadOp& op, int old_size, int new_size, bool& rounded) {
  if (old_size == new_size) return std::nullopt;
  switch (op.op) {
    case ReplayOp::send:
    case ReplayOp::recv:
    case ReplayOp::alltoallv:
      return fmt::format(
          "{} names particular peers, which the new data-parallel replicas have no "
          "counterpart of",
          name_of(op.op));
    case ReplayOp::all_gather:
    case ReplayOp::reduce_scatter:
    case ReplayOp::alltoall:
    case ReplayOp::gather:
    case ReplayOp::scatter: {
      const std::uint64_t whole = op.count * static_cast<std::uint64_t>(old_size);
      const std::uint64_t ranks = static_cast<std::uint64_t>(new_size);
      op.count = (whole + ranks - 1) / ranks;
      rounded = rounded || whole % ranks != 0;
      break;
    }
    default:
      break;
  }
  if (op.root && *op.root >= new_size) {
    return fmt::format("{} from root {}, which a communicator of {} ranks does not have",
                       name_of(op.op), *op.root, new_size);
  }
  return std::nullopt;
}

}  // namespace collbench::replay
