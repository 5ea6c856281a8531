// One rank's PyTorch profiler trace (torch.profiler's export_chrome_trace, gzipped or not), kept
// to what replay needs: the record_param_comms calls (one per collective or send/recv the host
// issued, with PyTorch's arguments), the NCCL kernels and the "nccl:coalesced" ranges that a
// batch of sends and receives ends with, and distributedInfo. Everything else is dropped while
// parsing, so a trace of gigabytes costs memory for its communication only.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace collbench::replay {

struct KinetoCall {
  std::size_t event = 0;  // its index in traceEvents, for source locations
  double ts_us = 0;       // when the host issued it
  std::int64_t thread = 0;
  nlohmann::json args;  // record_param_comms' arguments
};

struct KinetoGpuSpan {
  double start_us = 0;
  double end_us = 0;
  std::string stream;
};

struct KinetoCoalescedEnd {
  double ts_us = 0;
  std::int64_t thread = 0;
  std::int64_t external_id = 0;
};

struct KinetoTrace {
  std::string label;  // file name
  int rank = -1;
  int world_size = 0;
  std::optional<std::string> nccl_version;
  std::int64_t base_ns = 0;  // baseTimeNanoseconds: ts (us) counts from it
  // distributedInfo's pg_config: each process group's global ranks by its name, where a call's
  // own "Process Group Ranks" is empty (PyTorch 2.11 leaves it so for a group of one rank).
  std::map<std::string, std::vector<int>> group_ranks;
  std::vector<KinetoCall> calls;                        // in issue order
  std::unordered_map<std::int64_t, KinetoGpuSpan> gpu;  // NCCL kernels by External id
  std::vector<KinetoCoalescedEnd> coalesced_ends;       // in time order
};

// Reads and filters the trace at `path`; throws UsageError for a file that is not a trace or
// lacks distributedInfo.
KinetoTrace read_kineto_trace(const std::string& path);

// "kineto.rank0.json.gz:traceEvents[123]".
std::string kineto_place(const KinetoTrace& trace, std::size_t event);

}  // namespace collbench::replay
