// What an import gathers before the workload is written: the header's facts, the communicators
// by the source's key, the assumptions (each once, in the order made) and the earliest recorded
// instant, which becomes the time origin.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "import/imported_op.hpp"
#include "workload/communicator_table.hpp"
#include "workload/workload_records.hpp"
#include "workload/workload_writer.hpp"

namespace collbench::replay {

class ImportSession {
 public:
  ImportSession(std::string source_kind, std::vector<std::string> files);

  WorkloadHeader& header() { return header_; }
  const CommunicatorTable& communicators() const { return communicators_; }

  // The id of the communicator the source calls `key`, added with `ranks` (global, in
  // communicator rank order) when new. Throws UsageError at `where` when the source gave the same
  // key other ranks before.
  int communicator(const std::string& key, const std::vector<int>& ranks,
                   const std::vector<std::string>& names, const std::string& where);
  std::optional<int> find_communicator(const std::string& key) const;

  void assume(const std::string& note);
  void observe_time_ns(std::int64_t instant_ns);
  void observe_times(const SourceTimes& times);

  // The header (with the time origin and assumptions) and the communicators.
  void write_preamble(WorkloadWriter& writer);

 private:
  WorkloadHeader header_;
  CommunicatorTable communicators_;
  std::unordered_map<std::string, int> communicator_ids_;
  std::optional<std::int64_t> earliest_ns_;
};

}  // namespace collbench::replay
