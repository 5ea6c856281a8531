// The workload writer: header and communicators through nlohmann::json, op lines formatted
// directly (a trace has millions of them).
#include "workload/workload_writer.hpp"

#include <fmt/format.h>

#include <cmath>
#include <iterator>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/errors.hpp"

namespace collbench::replay {
namespace {

using nlohmann::json;
using ordered = nlohmann::ordered_json;  // keys in the documented order

// Names and source locations may hold any bytes: invalid UTF-8 is replaced, as JSON needs.
std::string json_string(const std::string& text) {
  return json(text).dump(-1, ' ', false, json::error_handler_t::replace);
}

ordered header_json(const WorkloadHeader& header) {
  ordered env = ordered::object();
  for (const auto& [name, value] : header.nccl_env) env[name] = value;
  ordered line = {
      {"format", kWorkloadFormat},
      {"version", kWorkloadVersion},
      {"source", header.source},
      {"source_files", header.source_files},
      {"nccl_version", header.nccl_version ? ordered(*header.nccl_version) : ordered()},
      {"nccl_env", env},
      {"world_size", header.world_size},
      {"assumptions", header.assumptions},
      {"time_origin_ns", header.time_origin_ns ? ordered(*header.time_origin_ns) : ordered()}};
  if (header.rescaled) {
    const RescaleRecord& r = *header.rescaled;
    line["rescaled"] = {{"from_world_size", r.from_world_size},
                        {"to_world_size", r.to_world_size},
                        {"tensor_parallel", r.tensor_parallel},
                        {"data_parallel_from", r.data_parallel_from},
                        {"data_parallel_to", r.data_parallel_to}};
  }
  return line;
}

void append_counts(std::string& line, const char* name, const std::vector<std::uint64_t>& counts) {
  fmt::format_to(std::back_inserter(line), ",\"{}\":[{}]", name, fmt::join(counts, ","));
}

void append_time(std::string& line, const char* name, const std::optional<double>& value) {
  if (!value) return;
  if (!std::isfinite(*value)) throw std::logic_error(fmt::format("{} is not finite", name));
  fmt::format_to(std::back_inserter(line), ",\"{}\":{}", name, *value);
}

void append_op_fields(std::string& line, const WorkloadOp& op) {
  auto out = std::back_inserter(line);
  fmt::format_to(out, "{{\"rank\":{},\"comm\":{},\"seq\":{},\"op\":\"{}\",\"dtype\":\"{}\"",
                 op.rank, op.comm, op.seq, name_of(op.op), name_of(op.dtype));
  if (spec_of(op.op).per_peer_counts) {
    append_counts(line, "send_counts", op.send_counts);
    append_counts(line, "recv_counts", op.recv_counts);
  } else {
    fmt::format_to(out, ",\"count\":{}", op.count);
  }
  if (op.redop) fmt::format_to(out, ",\"redop\":\"{}\"", name_of(*op.redop));
  if (op.root) fmt::format_to(out, ",\"root\":{}", *op.root);
  if (op.peer) fmt::format_to(out, ",\"peer\":{}", *op.peer);
  fmt::format_to(out, ",\"stream\":{}", op.stream);
  if (op.group) fmt::format_to(out, ",\"group\":{}", *op.group);
  if (!op.after.empty()) fmt::format_to(out, ",\"after\":[{}]", fmt::join(op.after, ","));
  append_time(line, "issue_us", op.times.issue_us);
  append_time(line, "start_us", op.times.start_us);
  append_time(line, "end_us", op.times.end_us);
  append_time(line, "duration_us", op.times.duration_us);
  if (!op.where.empty()) line += ",\"where\":" + json_string(op.where);
  line += "}\n";
}

}  // namespace

WorkloadWriter::WorkloadWriter(std::ostream& out, std::string path)
    : out_(out), path_(std::move(path)) {}

void WorkloadWriter::write_header(const WorkloadHeader& header) {
  if (header_written_) throw std::logic_error("workload header written twice");
  out_ << header_json(header).dump(-1, ' ', false, ordered::error_handler_t::replace) << '\n';
  header_written_ = true;
  check_stream();
}

void WorkloadWriter::write_communicator(const Communicator& communicator) {
  if (!header_written_ || ops_written_ > 0 || communicator.id != communicators_written_) {
    throw std::logic_error(fmt::format("communicator {} written out of order", communicator.id));
  }
  const ordered line = {{"communicator", communicator.id},
                        {"ranks", communicator.ranks},
                        {"names", communicator.names}};
  out_ << line.dump(-1, ' ', false, ordered::error_handler_t::replace) << '\n';
  ++communicators_written_;
  check_stream();
}

void WorkloadWriter::write_op(const WorkloadOp& op) {
  if (!header_written_) throw std::logic_error("workload op written before the header");
  line_.clear();
  append_op_fields(line_, op);
  out_.write(line_.data(), static_cast<std::streamsize>(line_.size()));
  ++ops_written_;
  if ((ops_written_ & 0xffff) == 0) check_stream();  // a full disk shows early, not at the end
}

void WorkloadWriter::finish() {
  out_.flush();
  check_stream();
}

void WorkloadWriter::check_stream() const {
  if (!out_) throw UsageError(fmt::format("{}: cannot be written (disk full?)", path_));
}

}  // namespace collbench::replay
