// Steps, waits and buffer placement of one rank's ops.
#include "plan/issue_plan.hpp"

#include <algorithm>

#include "core/data_type.hpp"
#include "plan/registry_op.hpp"

namespace collbench::replay {
namespace {

std::uint64_t aligned(std::uint64_t bytes) {
  return (bytes + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
}

// The ops of the step starting at `first`: one op, or every following op of its group.
IssueStep gather_step(const std::vector<WorkloadOp>& ops, std::size_t first) {
  IssueStep step;
  step.grouped = ops[first].group.has_value();
  std::size_t next = first;
  do {
    step.ops.push_back(next++);
  } while (step.grouped && next < ops.size() && ops[next].group == ops[first].group);
  for (std::size_t ordinal : step.ops) step.streams.push_back(ops[ordinal].stream);
  std::sort(step.streams.begin(), step.streams.end());
  step.streams.erase(std::unique(step.streams.begin(), step.streams.end()), step.streams.end());
  return step;
}

// Recorded waits that the step needs: not on an op of the step itself (the group launches its
// ops together), nor on an earlier op of the same stream (stream order already has it).
void add_waits(const std::vector<WorkloadOp>& ops, const std::vector<OpPlacement>& placed,
               std::size_t step_index, IssueStep& step) {
  for (std::size_t ordinal : step.ops) {
    for (const std::int64_t after : ops[ordinal].after) {
      const auto waited = static_cast<std::size_t>(after);
      if (placed[waited].step == step_index) continue;
      if (ops[waited].stream == ops[ordinal].stream) continue;
      const StreamWait wait{ops[ordinal].stream, waited};
      if (std::find(step.waits.begin(), step.waits.end(), wait) == step.waits.end())
        step.waits.push_back(wait);
    }
  }
}

// The step's ops side by side in their streams' buffers; each stream's buffers grow to hold them.
void place_data(const std::vector<WorkloadOp>& ops, const CommunicatorTable& communicators,
                const IssueStep& step, std::vector<OpPlacement>& placed,
                std::vector<StreamBuffers>& streams) {
  std::vector<StreamBuffers> used(streams.size(), StreamBuffers{0, 0});
  for (std::size_t ordinal : step.ops) {
    const WorkloadOp& op = ops[ordinal];
    const ElementCounts counts = op_element_counts(op, communicators.size_of(op.comm),
                                                   communicators.local_rank(op.comm, op.rank));
    OpPlacement& place = placed[ordinal];
    StreamBuffers& stream = used[static_cast<std::size_t>(op.stream)];
    place.send_bytes = counts.send * size_of(op.dtype);
    place.recv_bytes = counts.recv * size_of(op.dtype);
    place.send_offset = stream.send_bytes;
    place.recv_offset = stream.recv_bytes;
    stream.send_bytes = aligned(place.send_offset + place.send_bytes);
    stream.recv_bytes = aligned(place.recv_offset + place.recv_bytes);
  }
  for (std::size_t s = 0; s < streams.size(); ++s) {
    streams[s].send_bytes = std::max(streams[s].send_bytes, used[s].send_bytes);
    streams[s].recv_bytes = std::max(streams[s].recv_bytes, used[s].recv_bytes);
  }
}

}  // namespace

RankIssuePlan plan_rank_issue(const std::vector<WorkloadOp>& ops,
                              const CommunicatorTable& communicators) {
  RankIssuePlan plan;
  plan.ops.resize(ops.size());
  int stream_count = 0;
  for (const WorkloadOp& op : ops) stream_count = std::max(stream_count, op.stream + 1);
  plan.streams.resize(static_cast<std::size_t>(stream_count));
  for (std::size_t first = 0; first < ops.size();) {
    IssueStep step = gather_step(ops, first);
    for (std::size_t ordinal : step.ops) {
      plan.ops[ordinal].stream = ops[ordinal].stream;
      plan.ops[ordinal].step = plan.steps.size();
    }
    add_waits(ops, plan.ops, plan.steps.size(), step);
    place_data(ops, communicators, step, plan.ops, plan.streams);
    first += step.ops.size();
    plan.steps.push_back(std::move(step));
  }
  return plan;
}

}  // namespace collbench::replay
