// Op line fields: each read once, checked against the op's kind and its communicator.
#include "workload/op_line.hpp"

#include <fmt/format.h>

#include <limits>

#include "reports/printable.hpp"
#include "workload/json_values.hpp"

namespace collbench::replay {
namespace {

using nlohmann::json;

constexpr std::int64_t kMaxInt = std::numeric_limits<int>::max();
constexpr std::int64_t kMaxSeq = std::numeric_limits<std::int64_t>::max();

// Every field an op line may hold; anything else is refused (a typo would otherwise vanish).
constexpr std::string_view kOpFields[] = {
    "rank",        "comm",     "seq",    "op",          "dtype",  "count", "send_counts",
    "recv_counts", "redop",    "root",   "peer",        "stream", "group", "after",
    "issue_us",    "start_us", "end_us", "duration_us", "where"};

const json* optional_field(const json& line, const char* field, std::size_t& seen) {
  const auto found = line.find(field);
  if (found == line.end()) return nullptr;
  ++seen;
  return &*found;
}

const json& required_field(const json& line, const char* field, std::size_t& seen,
                           const LineContext& context) {
  const json* value = optional_field(line, field, seen);
  if (value == nullptr) context.fail(fmt::format("no '{}' field", field));
  return *value;
}

void read_identity(const json& line, const CommunicatorTable& communicators, int world_size,
                   std::size_t& seen, const LineContext& context, WorkloadOp& op) {
  op.rank = static_cast<int>(integer_field(required_field(line, "rank", seen, context), "rank", 0,
                                           world_size - 1, context));
  op.comm = static_cast<int>(integer_field(required_field(line, "comm", seen, context), "comm", 0,
                                           communicators.count() - 1, context));
  if (communicators.local_rank(op.comm, op.rank) < 0) {
    context.fail(
        fmt::format("rank {} is not a member of {}", op.rank, communicators.describe(op.comm)));
  }
  op.seq = integer_field(required_field(line, "seq", seen, context), "seq", 0, kMaxSeq, context);
  const json& name = required_field(line, "op", seen, context);
  const auto kind = find_replay_op(name.is_string() ? name.get_ref<const std::string&>() : "");
  if (!kind) wrong_value(name, "op", fmt::format("an op ({})", replay_op_names()), context);
  op.op = *kind;
  op.dtype = parse_dtype_name(required_field(line, "dtype", seen, context), context);
}

void read_sizes(const json& line, int comm_size, std::size_t& seen, const LineContext& context,
                WorkloadOp& op) {
  op.send_counts.clear();
  op.recv_counts.clear();
  if (!spec_of(op.op).per_peer_counts) {
    op.count = count_field(required_field(line, "count", seen, context), "count", context);
    return;
  }
  op.send_counts =
      counts_field(required_field(line, "send_counts", seen, context), "send_counts", context);
  op.recv_counts =
      counts_field(required_field(line, "recv_counts", seen, context), "recv_counts", context);
  for (const auto* counts : {&op.send_counts, &op.recv_counts}) {
    if (counts->size() != static_cast<std::size_t>(comm_size)) {
      context.fail(
          fmt::format("alltoallv has {} {}, not one per communicator rank ({})", counts->size(),
                      counts == &op.send_counts ? "send_counts" : "recv_counts", comm_size));
    }
  }
  op.count = 0;
  for (const std::uint64_t count : op.send_counts) op.count += count;
}

// A field the op must have exactly when `needed`.
const json* field_if(const json& line, const char* field, bool needed, std::size_t& seen,
                     const LineContext& context, const WorkloadOp& op) {
  const json* value = optional_field(line, field, seen);
  if (needed && value == nullptr) {
    context.fail(fmt::format("{} without '{}'", name_of(op.op), field));
  }
  if (!needed && value != nullptr) {
    context.fail(fmt::format("{} takes no '{}'", name_of(op.op), field));
  }
  return value;
}

void read_arguments(const json& line, int comm_size, std::size_t& seen, const LineContext& context,
                    WorkloadOp& op) {
  const ReplayOpSpec& spec = spec_of(op.op);
  op.redop.reset();
  op.root.reset();
  op.peer.reset();
  if (const json* redop = field_if(line, "redop", spec.reduces, seen, context, op)) {
    op.redop = parse_redop_name(*redop, context);
  }
  if (const json* root = field_if(line, "root", spec.rooted, seen, context, op)) {
    op.root = static_cast<int>(integer_field(*root, "root", 0, comm_size - 1, context));
  }
  if (const json* peer = field_if(line, "peer", spec.point_to_point, seen, context, op)) {
    op.peer = static_cast<int>(integer_field(*peer, "peer", 0, comm_size - 1, context));
  }
}

void read_schedule(const json& line, std::size_t& seen, const LineContext& context,
                   WorkloadOp& op) {
  op.stream = static_cast<int>(
      integer_field(required_field(line, "stream", seen, context), "stream", 0, kMaxInt, context));
  op.group.reset();
  if (const json* group = optional_field(line, "group", seen)) {
    op.group = integer_field(*group, "group", 0, kMaxSeq, context);
  }
  op.after.clear();
  if (const json* after = optional_field(line, "after", seen)) {
    op.after = integers_field(*after, "after", 0, kMaxSeq, context);
  }
}

void read_times(const json& line, std::size_t& seen, const LineContext& context, WorkloadOp& op) {
  const auto time = [&](const char* field) -> std::optional<double> {
    const json* value = optional_field(line, field, seen);
    if (value == nullptr) return std::nullopt;
    return number_field(*value, field, context);
  };
  op.times = {time("issue_us"), time("start_us"), time("end_us"), time("duration_us")};
  if (op.times.start_us.has_value() != op.times.end_us.has_value()) {
    context.fail("'start_us' and 'end_us' come together");
  }
  if (op.times.start_us && *op.times.end_us < *op.times.start_us) {
    context.fail(
        fmt::format("'end_us' {} is before 'start_us' {}", *op.times.end_us, *op.times.start_us));
  }
  if (op.times.duration_us && *op.times.duration_us < 0) {
    context.fail(fmt::format("'duration_us' {} is negative", *op.times.duration_us));
  }
}

void require_known_fields(const json& line, std::size_t seen, const LineContext& context) {
  if (seen == line.size()) return;
  for (const auto& item : line.items()) {
    if (std::find(std::begin(kOpFields), std::end(kOpFields), item.key()) == std::end(kOpFields)) {
      context.fail(fmt::format("unknown field '{}'", report::printable(item.key())));
    }
  }
}

}  // namespace

void parse_op_line(const json& line, const CommunicatorTable& communicators, int world_size,
                   LineContext& context, WorkloadOp& op) {
  if (!line.is_object()) context.fail("not a JSON object");
  std::size_t seen = 0;
  op.where.clear();
  if (const json* where = optional_field(line, "where", seen)) {
    op.where = text_field(*where, "where", context);
    context.source_where = op.where;
  }
  read_identity(line, communicators, world_size, seen, context, op);
  const int comm_size = communicators.size_of(op.comm);
  read_sizes(line, comm_size, seen, context, op);
  read_arguments(line, comm_size, seen, context, op);
  read_schedule(line, seen, context, op);
  read_times(line, seen, context, op);
  require_known_fields(line, seen, context);
}

DataType parse_dtype_name(const json& value, const LineContext& context) {
  if (value.is_string()) {
    for (const DataType type : all_data_types()) {
      if (value.get_ref<const std::string&>() == name_of(type)) return type;
    }
  }
  wrong_value(value, "dtype",
              "a data type (int8, uint8, int32, uint32, int64, uint64, half, float, double, "
              "bfloat16)",
              context);
}

ReduceOp parse_redop_name(const json& value, const LineContext& context) {
  if (value.is_string()) {
    for (const ReduceOp op : all_reduce_ops()) {
      if (value.get_ref<const std::string&>() == name_of(op)) return op;
    }
  }
  wrong_value(value, "redop", "a reduction (sum, prod, max, min, avg)", context);
}

}  // namespace collbench::replay
