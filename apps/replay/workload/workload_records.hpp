// The records of a workload file (docs/replay.md, "The workload format"): its header, its
// communicators and one rank's operation, as the writer takes them and the reader returns them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/data_type.hpp"
#include "workload/replay_op.hpp"

namespace collbench::replay {

inline constexpr const char* kWorkloadFormat = "collbench-workload";
inline constexpr int kWorkloadVersion = 1;

// How a rescaled workload came from the recorded one (rescale/).
struct RescaleRecord {
  int from_world_size = 0;
  int to_world_size = 0;
  int tensor_parallel = 1;     // ranks per tensor-parallel group, kept whole
  int data_parallel_from = 0;  // ranks per data-parallel group before and after
  int data_parallel_to = 0;
};

struct WorkloadHeader {
  std::string source;                     // nccl-log, kineto, flight-recorder (or what made it)
  std::vector<std::string> source_files;  // as given to the importer
  std::optional<std::string> nccl_version;
  std::map<std::string, std::string> nccl_env;  // NCCL_* settings the source shows, by name
  int world_size = 0;
  std::vector<std::string> assumptions;        // what the importer (or rescaling) assumed
  std::optional<std::int64_t> time_origin_ns;  // the source clock's instant that times count from
  std::optional<RescaleRecord> rescaled;
};

struct Communicator {
  int id = 0;                      // 0, 1, ... in file order
  std::vector<int> ranks;          // global ranks, in communicator rank order
  std::vector<std::string> names;  // the source's names for it (commId, process group)
};

// Times an op was recorded at, in microseconds after the header's time_origin_ns.
struct RecordedTimes {
  std::optional<double> issue_us;  // the host issued it
  std::optional<double> start_us;  // it ran on the GPU from start_us to end_us
  std::optional<double> end_us;
  std::optional<double>
      duration_us;  // its GPU time where the source has no start (Flight Recorder)
};

// One operation of one rank, in that rank's issue order.
struct WorkloadOp {
  int rank = 0;
  int comm = 0;
  // Collectives: the op's sequence number on its communicator, the same on every member.
  // send/recv: the number of earlier ops from the same sender to the same receiver on it.
  std::int64_t seq = 0;
  ReplayOp op = ReplayOp::all_reduce;
  DataType dtype = DataType::float32;
  std::uint64_t count = 0;                 // NCCL's count (alltoallv: the elements it sends)
  std::vector<std::uint64_t> send_counts;  // alltoallv only, one per communicator rank
  std::vector<std::uint64_t> recv_counts;
  std::optional<ReduceOp> redop;      // reducing ops only
  std::optional<int> root;            // rooted ops only: a communicator rank
  std::optional<int> peer;            // send/recv only: a communicator rank
  int stream = 0;                     // this rank's stream, numbered 0, 1, ...
  std::optional<std::int64_t> group;  // ops of one rank with one group id: one ncclGroupStart/End
  std::vector<std::int64_t> after;    // earlier ops of this rank (ordinals) it waits for
  RecordedTimes times;
  std::string where;  // the source's file:line or file:entry
};

}  // namespace collbench::replay
