// Flight Recorder dumps: JSON with the entries' fields checked as they are read.
#include "import/flight_recorder_dump.hpp"

#include <fmt/format.h>

#include <cctype>
#include <nlohmann/json.hpp>

#include "import/torch_names.hpp"
#include "io/path_names.hpp"
#include "io/text_input.hpp"
#include "reports/printable.hpp"
#include "workload/input_error.hpp"

namespace collbench::replay {
namespace {

using nlohmann::json;

const json& field(const json& object, const char* name, const std::string& where) {
  const auto found = object.find(name);
  if (found == object.end()) throw_bad_input(where, fmt::format("no '{}'", name));
  return *found;
}

std::int64_t integer(const json& object, const char* name, const std::string& where) {
  const json& value = field(object, name, where);
  if (!value.is_number_integer()) {
    throw_bad_input(where,
                    fmt::format("'{}' is {}, not an integer", name, show_value(value.dump())));
  }
  return value.get<std::int64_t>();
}

std::string text(const json& object, const char* name, const std::string& where) {
  const json& value = field(object, name, where);
  if (!value.is_string()) {
    throw_bad_input(where, fmt::format("'{}' is {}, not a string", name, show_value(value.dump())));
  }
  return value.get<std::string>();
}

std::vector<std::vector<std::int64_t>> shapes(const json& object, const char* name,
                                              const std::string& where) {
  const json& value = field(object, name, where);
  std::vector<std::vector<std::int64_t>> list;
  if (value.is_array()) {
    for (const json& shape : value) list.push_back(torch_int_list(shape, name, where));
    return list;
  }
  throw_bad_input(where,
                  fmt::format("'{}' is {}, not a list of shapes", name, show_value(value.dump())));
}

std::vector<std::string> names(const json& object, const char* name, const std::string& where) {
  const json& value = field(object, name, where);
  std::vector<std::string> list;
  for (const json& item : value.is_array() ? value : json::array({value})) {
    if (!item.is_string())
      throw_bad_input(where,
                      fmt::format("'{}' holds {}, not a name", name, show_value(item.dump())));
    list.push_back(item.get<std::string>());
  }
  return list;
}

FlightRecorderEntry read_entry(const json& entry, std::size_t index, const std::string& where) {
  FlightRecorderEntry read;
  read.index = index;
  read.record_id = integer(entry, "record_id", where);
  const json& group = field(entry, "process_group", where);
  if (!group.is_array() || group.empty() || !group[0].is_string()) {
    throw_bad_input(
        where, fmt::format("'process_group' is {}, not [name, desc]", show_value(group.dump())));
  }
  read.group_name = group[0].get<std::string>();
  read.group_desc = group.size() > 1 && group[1].is_string() ? group[1].get<std::string>() : "";
  read.profiling_name = text(entry, "profiling_name", where);
  read.collective_seq = integer(entry, "collective_seq_id", where);
  read.p2p_seq = integer(entry, "p2p_seq_id", where);
  const json& p2p = field(entry, "is_p2p", where);
  read.is_p2p = p2p.is_boolean() && p2p.get<bool>();
  read.input_sizes = shapes(entry, "input_sizes", where);
  read.output_sizes = shapes(entry, "output_sizes", where);
  read.input_dtypes = names(entry, "input_dtypes", where);
  read.output_dtypes = names(entry, "output_dtypes", where);
  if (const auto duration = entry.find("duration_ms");
      duration != entry.end() && duration->is_number()) {
    read.duration_ms = duration->get<double>();
  }
  if (const auto created = entry.find("time_created_ns");
      created != entry.end() && created->is_number_integer()) {
    read.created_ns = created->get<std::int64_t>();
  }
  return read;
}

void read_groups(const json& document, FlightRecorderDump& dump) {
  const auto config = document.find("pg_config");
  if (config == document.end() || !config->is_object()) return;
  for (const auto& item : config->items()) {
    const std::string where =
        fmt::format("{}:pg_config[{}]", dump.label, report::printable(item.key()));
    FlightRecorderGroup group;
    if (const auto desc = item.value().find("desc");
        desc != item.value().end() && desc->is_string()) {
      group.desc = desc->get<std::string>();
    }
    for (const std::int64_t rank :
         torch_int_list(field(item.value(), "ranks", where), "ranks", where)) {
      group.ranks.push_back(static_cast<int>(rank));
    }
    dump.groups.emplace(item.key(), std::move(group));
  }
}

json parse_dump(const std::string& path, const std::string& label) {
  TextInput input(path);
  // Stack frames can outweigh everything else: dropped as soon as parsed.
  const json::parser_callback_t drop_frames = [](int, json::parse_event_t event, json& parsed) {
    return !(event == json::parse_event_t::key && parsed == "frames");
  };
  try {
    return json::parse(input.stream(), drop_frames);
  } catch (const json::exception& error) {
    const std::string message = error.what();
    throw_bad_input(label,
                    fmt::format("not a JSON dump ({})",
                                report::printable(message.substr(message.find("] ") + 2), 120)));
  }
}

}  // namespace

std::optional<int> rank_in_file_name(const std::string& label) {
  std::size_t end = label.size();
  while (end > 0 && !std::isdigit(static_cast<unsigned char>(label[end - 1]))) --end;
  std::size_t begin = end;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(label[begin - 1]))) --begin;
  if (begin == end || end - begin > 7) return std::nullopt;
  return std::stoi(label.substr(begin, end - begin));
}

std::string flight_recorder_place(const FlightRecorderDump& dump, std::size_t entry) {
  return fmt::format("{}:entries[{}]", dump.label, entry);
}

FlightRecorderDump read_flight_recorder_dump(const std::string& path) {
  FlightRecorderDump dump;
  dump.label = base_name(path);
  const auto rank = rank_in_file_name(dump.label);
  if (!rank)
    throw_bad_input(dump.label,
                    "no rank in the file name (Flight Recorder names its dumps PREFIX<rank>)");
  dump.rank = *rank;
  const json document = parse_dump(path, dump.label);
  if (!document.is_object() || !document.contains("entries")) {
    throw_bad_input(dump.label, "no 'entries': not a Flight Recorder dump");
  }
  if (const auto version = document.find("version");
      version != document.end() && version->is_string()) {
    dump.version = version->get<std::string>();
  }
  if (const auto nccl = document.find("comm_lib_version");
      nccl != document.end() && nccl->is_string()) {
    dump.nccl_version = nccl->get<std::string>();
  }
  read_groups(document, dump);
  const json& entries = document.at("entries");
  if (!entries.is_array()) throw_bad_input(dump.label, "'entries' is not a list");
  for (std::size_t i = 0; i < entries.size(); ++i) {
    dump.entries.push_back(read_entry(entries[i], i, flight_recorder_place(dump, i)));
  }
  return dump;
}

}  // namespace collbench::replay
