// Workload totals.
#include "summary/workload_summary.hpp"

#include <algorithm>

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
  std::uint64_t elements = 0;
  if (spec_of(op.op).per_peer_counts) {
    std::uint64_t sent = 0, received = 0;
    for (const std::uint64_t count : op.send_counts) sent += count;
    for (const std::uint64_t count : op.recv_counts) received += count;
    elements = std::max(sent, received);
  } else {
    const bool is_root = op.root && communicators.local_rank(op.comm, op.rank) == *op.root;
    const BufferElements buffers =
        buffer_elements(op.op, op.count, communicators.size_of(op.comm), is_root);
    elements = std::max(buffers.send, buffers.recv);
  }
  return elements * size_of(op.dtype);
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
    const std::optional<double> gpu_us =
        times.start_us ? std::optional<double>(*times.end_us - *times.start_us) : times.duration_us;
    if (gpu_us) {
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
