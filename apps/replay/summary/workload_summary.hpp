// What a workload holds, in totals: per communicator and op, the calls, the bytes they move and
// the GPU time recorded for them; the span of the recorded times. Read in one streaming pass.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "workload/communicator_table.hpp"
#include "workload/workload_records.hpp"

namespace collbench::replay {

struct OpTotals {
  std::uint64_t calls = 0;        // op lines, all ranks
  std::uint64_t bytes = 0;        // each call's larger buffer (nccl-tests' size), summed
  std::uint64_t timed_calls = 0;  // calls with a recorded GPU time
  double gpu_us = 0;              // their GPU time, summed
};

struct WorkloadSummary {
  WorkloadHeader header;
  CommunicatorTable communicators;
  std::map<std::pair<int, ReplayOp>, OpTotals> by_communicator_op;
  std::uint64_t ops = 0;
  std::optional<double> first_us;  // the earliest recorded instant
  std::optional<double> last_us;   // the latest
};

WorkloadSummary summarize_workload(const std::string& path);

// One call's larger buffer in bytes: what nccl-tests calls its size.
std::uint64_t op_bytes(const WorkloadOp& op, const CommunicatorTable& communicators);

}  // namespace collbench::replay
