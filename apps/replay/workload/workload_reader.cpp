// The streaming workload reader.
#include "workload/workload_reader.hpp"

#include <fmt/format.h>

#include "reports/printable.hpp"
#include "workload/header_lines.hpp"
#include "workload/input_error.hpp"
#include "workload/op_line.hpp"

namespace collbench::replay {
namespace {

using nlohmann::json;

// nlohmann's message without its "[json.exception.parse_error.101] " tag.
std::string parse_problem(const json::parse_error& error) {
  const std::string message = error.what();
  const std::size_t tag_end = message.find("] ");
  return tag_end == std::string::npos ? message : message.substr(tag_end + 2);
}

}  // namespace

WorkloadReader::WorkloadReader(const std::string& path, ReaderOptions options)
    : input_(path), options_(options) {
  context_.path = input_.path();
  context_.source_first = options_.source_first;
  if (!read_json(json_)) throw_bad_input(report::printable(path), "empty, not a workload");
  header_ = parse_header_line(json_, context_);
  read_communicators();
}

bool WorkloadReader::read_json(json& into) {
  do {
    if (!input_.next_line(text_)) return false;
  } while (text_.empty());
  context_.line = input_.line_number();
  context_.source_where = {};
  try {
    into = json::parse(text_);
  } catch (const json::parse_error& error) {
    context_.fail(fmt::format("not JSON ({})", report::printable(parse_problem(error), 120)));
  }
  return true;
}

void WorkloadReader::read_communicators() {
  while (read_json(json_)) {
    if (!json_.is_object() || !json_.contains("communicator")) {
      json_pending_ = true;  // the first op line
      return;
    }
    communicators_.add(
        parse_communicator_line(json_, communicators_.count(), header_.world_size, context_));
  }
}

const WorkloadOp* WorkloadReader::next() {
  if (json_pending_) {
    json_pending_ = false;
  } else if (!read_json(json_)) {
    return nullptr;
  }
  if (json_.is_object() && json_.contains("communicator")) {
    context_.fail("a communicator line after the first op line (communicators come first)");
  }
  parse_op_line(json_, communicators_, header_.world_size, context_, op_);
  ordinal_ = order_.admit(op_, context_);
  return &op_;
}

std::string locate_workload_line(const std::string& path, std::uint64_t line, bool source_first) {
  LineContext context{path, line, {}, source_first};
  TextInput input(path);
  std::string text;
  while (input.next_line(text)) {
    if (input.line_number() != line) continue;
    const json parsed = json::parse(text, nullptr, false);
    const auto where = parsed.is_object() ? parsed.find("where") : parsed.end();
    if (parsed.is_object() && where != parsed.end() && where->is_string()) {
      const std::string source = where->get<std::string>();
      context.source_where = source;
      return context.location();
    }
    break;
  }
  return context.location();
}

}  // namespace collbench::replay
