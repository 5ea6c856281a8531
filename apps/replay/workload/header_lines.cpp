// Header and communicator lines: required fields, types, ranges, and no unknown field.
#include "workload/header_lines.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>
#include <limits>

#include "reports/printable.hpp"
#include "workload/json_values.hpp"

namespace collbench::replay {
namespace {

using nlohmann::json;

constexpr std::int64_t kMaxInt = std::numeric_limits<int>::max();

void require_known_fields(const json& line, std::initializer_list<std::string_view> known,
                          const LineContext& context) {
  for (const auto& item : line.items()) {
    if (std::find(known.begin(), known.end(), item.key()) == known.end()) {
      context.fail(fmt::format("unknown field '{}'", report::printable(item.key())));
    }
  }
}

const json& required(const json& line, const char* field, const LineContext& context) {
  const auto found = line.find(field);
  if (found == line.end()) context.fail(fmt::format("no '{}' field", field));
  return *found;
}

std::map<std::string, std::string> parse_nccl_env(const json& value, const LineContext& context) {
  if (!value.is_object()) wrong_value(value, "nccl_env", "an object of NCCL_* settings", context);
  std::map<std::string, std::string> settings;
  for (const auto& item : value.items()) {
    if (item.key().rfind("NCCL_", 0) != 0) {
      context.fail(fmt::format("'nccl_env' holds '{}', not an NCCL_* setting",
                               report::printable(item.key())));
    }
    settings.emplace(item.key(), text_field(item.value(), "nccl_env", context));
  }
  return settings;
}

RescaleRecord parse_rescaled(const json& value, const LineContext& context) {
  if (!value.is_object()) wrong_value(value, "rescaled", "an object", context);
  require_known_fields(value,
                       {"from_world_size", "to_world_size", "tensor_parallel", "data_parallel_from",
                        "data_parallel_to"},
                       context);
  const auto size = [&](const char* field) {
    return static_cast<int>(
        integer_field(required(value, field, context), field, 1, kMaxWorldSize, context));
  };
  return {size("from_world_size"), size("to_world_size"), size("tensor_parallel"),
          size("data_parallel_from"), size("data_parallel_to")};
}

void require_format(const json& line, const LineContext& context) {
  const auto format = line.find("format");
  if (format == line.end() || *format != kWorkloadFormat) {
    context.fail(fmt::format("not a collbench workload (its first line has no \"format\": \"{}\")",
                             kWorkloadFormat));
  }
  const std::int64_t version =
      integer_field(required(line, "version", context), "version", 0, kMaxInt, context);
  if (version != kWorkloadVersion) {
    context.fail(fmt::format("workload version {}; this collbench reads version {}", version,
                             kWorkloadVersion));
  }
}

}  // namespace

WorkloadHeader parse_header_line(const json& line, const LineContext& context) {
  if (!line.is_object()) context.fail("the header is not a JSON object");
  require_format(line, context);
  require_known_fields(line,
                       {"format", "version", "source", "source_files", "nccl_version", "nccl_env",
                        "world_size", "assumptions", "time_origin_ns", "rescaled"},
                       context);
  WorkloadHeader header;
  header.source = text_field(required(line, "source", context), "source", context);
  header.source_files =
      texts_field(required(line, "source_files", context), "source_files", context);
  if (const json& version = required(line, "nccl_version", context); !version.is_null()) {
    header.nccl_version = text_field(version, "nccl_version", context);
  }
  header.nccl_env = parse_nccl_env(required(line, "nccl_env", context), context);
  header.world_size = static_cast<int>(integer_field(required(line, "world_size", context),
                                                     "world_size", 1, kMaxWorldSize, context));
  header.assumptions = texts_field(required(line, "assumptions", context), "assumptions", context);
  if (const json& origin = required(line, "time_origin_ns", context); !origin.is_null()) {
    header.time_origin_ns =
        integer_field(origin, "time_origin_ns", std::numeric_limits<std::int64_t>::min(),
                      std::numeric_limits<std::int64_t>::max(), context);
  }
  if (const auto rescaled = line.find("rescaled"); rescaled != line.end()) {
    header.rescaled = parse_rescaled(*rescaled, context);
  }
  return header;
}

Communicator parse_communicator_line(const json& line, int expected_id, int world_size,
                                     const LineContext& context) {
  require_known_fields(line, {"communicator", "ranks", "names"}, context);
  Communicator communicator;
  communicator.id = static_cast<int>(
      integer_field(required(line, "communicator", context), "communicator", 0, kMaxInt, context));
  if (communicator.id != expected_id) {
    context.fail(fmt::format("communicator {} where {} comes next (numbered 0, 1, ... in order)",
                             communicator.id, expected_id));
  }
  const json& ranks = required(line, "ranks", context);
  for (const std::int64_t rank : integers_field(ranks, "ranks", 0, world_size - 1, context)) {
    communicator.ranks.push_back(static_cast<int>(rank));
  }
  if (communicator.ranks.empty()) context.fail("communicator with no ranks");
  std::vector<int> sorted = communicator.ranks;
  std::sort(sorted.begin(), sorted.end());
  if (const auto twice = std::adjacent_find(sorted.begin(), sorted.end()); twice != sorted.end()) {
    context.fail(fmt::format("rank {} is twice in communicator {}", *twice, communicator.id));
  }
  communicator.names = texts_field(required(line, "names", context), "names", context);
  return communicator;
}

}  // namespace collbench::replay
