// Filtered parsing of a Kineto trace: nlohmann's parser callback keeps the few events replay
// reads and discards the rest as soon as each is parsed.
#include "import/kineto_trace.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "io/path_names.hpp"
#include "io/text_input.hpp"
#include "reports/printable.hpp"
#include "workload/input_error.hpp"

namespace collbench::replay {
namespace {

using nlohmann::json;

bool starts_with(const std::string& text, std::string_view prefix) {
  return text.rfind(prefix, 0) == 0;
}

const std::string& text_or_empty(const json& event, const char* key) {
  static const std::string empty;
  const auto found = event.find(key);
  return found != event.end() && found->is_string() ? found->get_ref<const std::string&>() : empty;
}

// The events replay reads; all others are dropped.
bool wanted_event(const json& event) {
  const std::string& category = text_or_empty(event, "cat");
  const std::string& name = text_or_empty(event, "name");
  if (category == "cpu_op") return name == "record_param_comms";
  if (category == "kernel") return starts_with(name, "nccl");
  if (category == "user_annotation" || category == "gpu_user_annotation")
    return name == "nccl:coalesced";
  return false;
}

double number_or(const json& object, const char* key, double fallback) {
  const auto found = object.find(key);
  return found != object.end() && found->is_number() ? found->get<double>() : fallback;
}

std::int64_t integer_or(const json& object, const char* key, std::int64_t fallback) {
  const auto found = object.find(key);
  return found != object.end() && found->is_number_integer() ? found->get<std::int64_t>()
                                                             : fallback;
}

// Adds a GPU span under its External id (several kernels of one call: their envelope).
void add_gpu_span(KinetoTrace& trace, std::int64_t external_id, const json& event,
                  std::string stream) {
  const double start = number_or(event, "ts", 0);
  const double end = start + number_or(event, "dur", 0);
  const auto [found, added] = trace.gpu.try_emplace(external_id, KinetoGpuSpan{start, end, stream});
  if (!added) {
    found->second.start_us = std::min(found->second.start_us, start);
    found->second.end_us = std::max(found->second.end_us, end);
  }
}

void keep_event(KinetoTrace& trace, std::size_t index, json& event) {
  const std::string& category = text_or_empty(event, "cat");
  json& args = event["args"];
  const std::int64_t external_id = integer_or(args, "External id", -1);
  if (category == "cpu_op") {
    trace.calls.push_back(
        {index, number_or(event, "ts", 0), integer_or(event, "tid", 0), std::move(args)});
  } else if (category == "user_annotation") {
    trace.coalesced_ends.push_back(
        {number_or(event, "ts", 0), integer_or(event, "tid", 0), external_id});
  } else if (external_id >= 0) {  // kernels and GPU ranges, by the call or range they ran for
    const std::int64_t stream =
        category == "kernel" ? integer_or(args, "stream", -1) : integer_or(event, "tid", -1);
    add_gpu_span(trace, external_id, event, fmt::format("cuda stream {}", stream));
  }
}

void read_distributed_info(KinetoTrace& trace, const json& document) {
  const auto info = document.find("distributedInfo");
  if (info == document.end() || !info->is_object()) {
    throw_bad_input(trace.label, "no distributedInfo: not the trace of a torch.distributed rank");
  }
  trace.rank = static_cast<int>(integer_or(*info, "rank", -1));
  trace.world_size = static_cast<int>(integer_or(*info, "world_size", 0));
  if (trace.rank < 0 || trace.world_size <= trace.rank) {
    throw_bad_input(trace.label, fmt::format("distributedInfo has rank {} of world_size {}",
                                             trace.rank, trace.world_size));
  }
  if (const auto version = info->find("nccl_version");
      version != info->end() && version->is_string()) {
    trace.nccl_version = version->get<std::string>();
  }
  trace.base_ns = integer_or(document, "baseTimeNanoseconds", 0);
  const auto config = info->find("pg_config");
  if (config == info->end() || !config->is_array()) return;
  for (const json& group : *config) {
    const auto name = group.find("pg_name");
    const auto ranks = group.find("ranks");
    if (name == group.end() || !name->is_string() || ranks == group.end() || !ranks->is_array())
      continue;
    std::vector<int> members;
    for (const json& rank : *ranks) {
      if (rank.is_number_integer()) members.push_back(rank.get<int>());
    }
    // A name given twice with the same ranks says nothing new; with others, which is meant?
    const auto [known, added] = trace.group_ranks.emplace(name->get<std::string>(), members);
    if (!added && known->second != members) {
      throw_bad_input(
          trace.label,
          fmt::format("distributedInfo.pg_config names process group '{}' twice, with "
                      "ranks {} and {}",
                      known->first, fmt::join(known->second, ","), fmt::join(members, ",")));
    }
  }
}

}  // namespace

std::string kineto_place(const KinetoTrace& trace, std::size_t event) {
  return fmt::format("{}:traceEvents[{}]", trace.label, event);
}

KinetoTrace read_kineto_trace(const std::string& path) {
  KinetoTrace trace;
  trace.label = base_name(path);
  TextInput input(path);
  bool in_events = false;
  std::size_t index = 0;
  const json::parser_callback_t keep = [&](int depth, json::parse_event_t event, json& parsed) {
    if (depth == 1 && event == json::parse_event_t::key) in_events = parsed == "traceEvents";
    if (depth != 2 || event != json::parse_event_t::object_end || !in_events) return true;
    if (wanted_event(parsed)) keep_event(trace, index, parsed);
    ++index;
    return false;  // kept in `trace` or dropped: either way not in the document
  };
  json document;
  try {
    document = json::parse(input.stream(), keep);
  } catch (const json::exception& error) {
    const std::string message = error.what();
    throw_bad_input(trace.label,
                    fmt::format("not a JSON trace ({})",
                                report::printable(message.substr(message.find("] ") + 2), 120)));
  }
  if (!document.is_object() || !document.contains("traceEvents")) {
    throw_bad_input(trace.label, "no traceEvents: not a PyTorch profiler trace");
  }
  read_distributed_info(trace, document);
  std::stable_sort(trace.calls.begin(), trace.calls.end(),
                   [](const KinetoCall& a, const KinetoCall& b) { return a.ts_us < b.ts_us; });
  std::stable_sort(
      trace.coalesced_ends.begin(), trace.coalesced_ends.end(),
      [](const KinetoCoalescedEnd& a, const KinetoCoalescedEnd& b) { return a.ts_us < b.ts_us; });
  return trace;
}

}  // namespace collbench::replay
