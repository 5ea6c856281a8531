// Workload totals.
#include "summary/workload_summary.hpp"

#include <algorithm>

#include "plan/recorded_times.hpp"
#include "plan/registry_op.hpp"
#include "workload/workload_reader.hpp"

namespace collbench::replay {
namespace {

void widen(std::optional<double>& first, std::optional<double>& last,
           const std::optional<double>& at) {
  if (!at) return;
  first = first ? std::min(*first, *at) : *at;
  last = last ? std::max(*last, *at) : *at;
}

}  // namespace

std::uint64_t op_bytes(const WorkloadOp& op, const CommunicatorTable& communicators) {
  const ElementCounts counts = op_element_counts(op, communicators.size_of(op.comm),
                                                 communicators.local_rank(op.comm, op.rank));
  return std::max(counts.send, counts.recv) * size_of(op.dtype);
}

WorkloadSummary summarize_workload(const std::string& path) {
  WorkloadReader reader(path);
  WorkloadSummary summary;
  summary.header = reader.header();
  summary.communicators = reader.communicators();
  while (const WorkloadOp* op = reader.next()) {
    ++summary.ops;
    OpTotals& totals = summary.by_communicator_op[{op->comm, op->op}];
    ++totals.calls;
    totals.bytes += op_bytes(*op, summary.communicators);
    const RecordedTimes& times = op->times;
    if (const std::optional<double> gpu_us = recorded_duration_us(times)) {
      ++totals.timed_calls;
      totals.gpu_us += *gpu_us;
    }
    for (const auto& at : {times.issue_us, times.start_us, times.end_us}) {
      widen(summary.first_us, summary.last_us, at);
    }
  }
  return summary;
}

}  // namespace collbench::replay
