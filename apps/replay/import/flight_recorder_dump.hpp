// One rank's Flight Recorder dump (PyTorch's _dump_nccl_trace_json, TORCH_FR_BUFFER_SIZE > 0),
// kept to what replay reads: its process groups (pg_config, when present) and its entries, the
// last ops the rank issued, oldest first. Stack frames are dropped while parsing.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace collbench::replay {

struct FlightRecorderEntry {
  std::size_t index = 0;       // in "entries", for source locations
  std::int64_t record_id = 0;  // counts every entry the rank recorded: the first one kept says
                               // how many the ring buffer dropped
  std::string group_name;      // process_group[0]
  std::string group_desc;
  std::string profiling_name;       // "nccl:all_reduce", "nccl:send 0->1", "nccl:coalesced"
  std::int64_t collective_seq = 0;  // collective_seq_id: this collective's, or the last one's
  std::int64_t p2p_seq = 0;         // p2p_seq_id: shared by the members of a coalesced batch
  bool is_p2p = false;
  std::vector<std::vector<std::int64_t>> input_sizes, output_sizes;
  std::vector<std::string> input_dtypes, output_dtypes;
  std::optional<double> duration_ms;
  std::optional<std::int64_t> created_ns;
};

struct FlightRecorderGroup {
  std::string desc;
  std::vector<int> ranks;
};

struct FlightRecorderDump {
  std::string label;  // file name
  int rank = -1;      // from the file name: dumps carry none
  std::string version;
  std::optional<std::string> nccl_version;
  std::map<std::string, FlightRecorderGroup> groups;  // pg_config by name; empty when absent
  std::vector<FlightRecorderEntry> entries;
};

// Throws UsageError for a file that is not a dump, or whose name holds no rank.
FlightRecorderDump read_flight_recorder_dump(const std::string& path);

// "fr.rank0.json:entries[5]".
std::string flight_recorder_place(const FlightRecorderDump& dump, std::size_t entry);

// The rank at the end of a dump's file name ("fr.rank3.json", "nccl_trace_rank_3").
std::optional<int> rank_in_file_name(const std::string& label);

}  // namespace collbench::replay
