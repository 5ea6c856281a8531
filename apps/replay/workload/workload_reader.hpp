// Reads a workload file line by line, checking every field as it goes: the header and the
// communicators when opened, then one op per next(). It holds one line and one rank's order
// state (RankOrder), never the whole workload: memory stays bounded however many ops there are.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "io/text_input.hpp"
#include "workload/communicator_table.hpp"
#include "workload/line_context.hpp"
#include "workload/rank_order.hpp"
#include "workload/workload_records.hpp"

namespace collbench::replay {

struct ReaderOptions {
  // Messages name the op's source location first: for a workload made in passing from sources.
  bool source_first = false;
};

class WorkloadReader {
 public:
  // Reads and checks the header and communicator lines; throws UsageError ("PATH:LINE: ...").
  explicit WorkloadReader(const std::string& path, ReaderOptions options = {});

  const WorkloadHeader& header() const { return header_; }
  const CommunicatorTable& communicators() const { return communicators_; }

  // The next op, checked; nullptr after the last. The op is reused by the next call.
  const WorkloadOp* next();
  std::uint64_t line() const { return context_.line; }  // the line of the op last returned
  std::int64_t ordinal() const { return ordinal_; }     // its place in its rank's issue order
  // Where the op last returned is, for messages about it.
  const LineContext& context() const { return context_; }
  const std::string& path() const { return input_.path(); }

 private:
  // The next non-empty line as JSON; false at the end.
  bool read_json(nlohmann::json& into);
  void read_communicators();

  TextInput input_;
  ReaderOptions options_;
  std::string text_;
  nlohmann::json json_;
  bool json_pending_ = false;  // json_ holds the first op line, read with the communicators
  LineContext context_;
  WorkloadHeader header_;
  CommunicatorTable communicators_;
  RankOrder order_;
  WorkloadOp op_;
  std::int64_t ordinal_ = -1;
};

// The line `line` of a workload as its location for messages ("w.jsonl:12 (src.log:85)"): for
// errors found after the line was read (the check's mismatches and cycles).
std::string locate_workload_line(const std::string& path, std::uint64_t line, bool source_first);

}  // namespace collbench::replay
