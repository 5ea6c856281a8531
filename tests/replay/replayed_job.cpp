// A replayed job made up in code.
#include "replayed_job.hpp"

#include <numeric>

#include "workload_builders.hpp"

namespace collbench::replay::testing {
namespace {

WorkloadOp alltoallv_op(int rank, std::int64_t seq, std::vector<std::uint64_t> send,
                        std::vector<std::uint64_t> recv) {
  WorkloadOp op = collective_op(rank, 0, seq, ReplayOp::alltoallv);
  op.count = std::accumulate(send.begin(), send.end(), std::uint64_t{0});  // what it sends
  op.send_counts = std::move(send);
  op.recv_counts = std::move(recv);
  return op;
}

WorkloadOp rooted(WorkloadOp op, int root) {
  op.root = root;
  return op;
}

std::vector<WorkloadOp> rank_ops(int rank) {
  WorkloadOp bfloat16 = collective_op(rank, 0, 2, ReplayOp::all_reduce, 2048);
  bfloat16.dtype = DataType::bfloat16;
  const bool first = rank == 0;
  return {collective_op(rank, 0, 0, ReplayOp::all_reduce, 1024),
          collective_op(rank, 0, 1, ReplayOp::all_reduce, 1024),
          bfloat16,
          first ? alltoallv_op(rank, 3, {1, 2}, {1, 3}) : alltoallv_op(rank, 3, {3, 4}, {2, 4}),
          rooted(collective_op(rank, 0, 4, ReplayOp::broadcast, 64), 0),
          rooted(collective_op(rank, 0, 5, ReplayOp::broadcast, 64), 1),
          first ? p2p_op(rank, 0, ReplayOp::send, 1, 0) : p2p_op(rank, 0, ReplayOp::recv, 0, 0)};
}

}  // namespace

WorkloadOps mixed_job() {
  WorkloadOps workload;
  workload.path = "mixed_job.jsonl";
  workload.header = synthetic_header(2);
  workload.communicators = CommunicatorTable({{0, {0, 1}, {"world"}}});
  workload.by_rank = {rank_ops(0), rank_ops(1)};
  return workload;
}

std::vector<RankResults> fabricated_results(const WorkloadOps& workload,
                                            const FabricatedTiming& timing) {
  std::vector<RankResults> results(workload.by_rank.size());
  for (std::size_t rank = 0; rank < results.size(); ++rank) {
    const std::size_t ops = workload.by_rank[rank].size();
    for (int i = 0; i < timing.iterations; ++i) {
      const double jitter = 1 + ((i * 7) % 11 - 5) * 1e-3;  // +-0.5%, a different order than i
      std::vector<OpInterval> iteration;
      double at_us = 0;
      for (std::size_t ordinal = 0; ordinal < ops; ++ordinal) {
        double duration_us = (10.0 * static_cast<double>(ordinal + 1) + static_cast<double>(rank));
        if (ordinal == timing.slowed_op) duration_us *= timing.slowdown;
        iteration.push_back({at_us, at_us + duration_us * jitter});
        at_us = iteration.back().end_us;
      }
      results[rank].iterations.push_back(iteration);
      results[rank].window_us.push_back(at_us + 2);
      results[rank].plain_window_us.push_back(at_us - 20);  // without the per-op events
    }
    results[rank].mismatches.assign(ops, 0);
  }
  if (timing.wrong_elements > 0) results[1].mismatches[timing.wrong_op] = timing.wrong_elements;
  return results;
}

}  // namespace collbench::replay::testing
