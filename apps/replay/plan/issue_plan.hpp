// One rank's ops as the steps its thread issues: an op alone, or the ops of one group between one
// ncclGroupStart/ncclGroupEnd; for each step the streams it touches and the recorded waits it
// needs (an earlier op on another stream, met by that op's end event); where each op's data lies
// in its stream's buffers (a group's ops side by side, so none overwrites another's); and the size
// of each stream's buffers: the largest step on that stream. Pure: the GPU replay follows it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "workload/communicator_table.hpp"
#include "workload/workload_records.hpp"

namespace collbench::replay {

// Offsets in a stream's buffers are multiples of this: what cudaMalloc aligns to, and what NCCL's
// fastest paths want.
inline constexpr std::uint64_t kBufferAlignment = 256;

// Where one op's data lies in its stream's buffers (bytes), and the step that issues it.
struct OpPlacement {
  int stream = 0;
  std::size_t step = 0;
  std::uint64_t send_offset = 0;
  std::uint64_t recv_offset = 0;
  std::uint64_t send_bytes = 0;
  std::uint64_t recv_bytes = 0;
};

// Before its step, `stream` waits for the end of the earlier op `op` of another stream.
struct StreamWait {
  int stream = 0;
  std::size_t op = 0;
  bool operator==(const StreamWait& other) const {
    return stream == other.stream && op == other.op;
  }
};

struct IssueStep {
  std::vector<std::size_t> ops;  // ordinals, in issue order
  bool grouped = false;          // issued between one ncclGroupStart/ncclGroupEnd
  std::vector<int> streams;      // the streams of its ops, ascending
  std::vector<StreamWait> waits;
  // What it enqueues: a start and an end event per stream, its waits, one launch per op.
  std::size_t stream_operations() const { return 2 * streams.size() + waits.size() + ops.size(); }
};

struct StreamBuffers {
  std::uint64_t send_bytes = kBufferAlignment;  // never empty: every op has a valid address
  std::uint64_t recv_bytes = kBufferAlignment;
};

struct RankIssuePlan {
  std::vector<IssueStep> steps;
  std::vector<OpPlacement> ops;        // by ordinal
  std::vector<StreamBuffers> streams;  // by stream id (0, 1, ... by first use)
};

// `ops`: one rank's ops of a checked workload, in issue order (ordinal = index).
RankIssuePlan plan_rank_issue(const std::vector<WorkloadOp>& ops,
                              const CommunicatorTable& communicators);

}  // namespace collbench::replay
