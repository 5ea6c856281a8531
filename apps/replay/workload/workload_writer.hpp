// Writes a workload file: the header line, the communicator lines, then every rank's op lines in
// issue order, one JSON object per line (docs/replay.md, "The workload format").
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "workload/workload_records.hpp"

namespace collbench::replay {

class WorkloadWriter {
 public:
  // `path` names the output in messages.
  WorkloadWriter(std::ostream& out, std::string path);

  // In this order: one header, the communicators by id, then the ops, rank by rank. Writing out
  // of order is a programming error (std::logic_error); the reader checks the content.
  void write_header(const WorkloadHeader& header);
  void write_communicator(const Communicator& communicator);
  void write_op(const WorkloadOp& op);
  // Flushes; throws UsageError naming the path when anything could not be written.
  void finish();

  std::uint64_t ops_written() const { return ops_written_; }
  int communicators_written() const { return communicators_written_; }

 private:
  void check_stream() const;

  std::ostream& out_;
  std::string path_;
  bool header_written_ = false;
  int communicators_written_ = 0;
  std::uint64_t ops_written_ = 0;
  std::string line_;  // reused: one op line at a time
};

}  // namespace collbench::replay
