// Source kinds by content, and the importer of each.
#include "import/source_kind.hpp"

#include <fmt/format.h>

#include "import/flight_recorder_import.hpp"
#include "import/kineto_import.hpp"
#include "import/nccl_log_import.hpp"
#include "io/path_names.hpp"
#include "io/text_input.hpp"
#include "workload/input_error.hpp"

namespace collbench::replay {
namespace {

constexpr std::size_t kSniffBytes = 64 << 10;

bool has(const std::string& text, std::string_view what) {
  return text.find(what) != std::string::npos;
}

std::optional<SourceKind> kind_of_content(const std::string& prefix) {
  if (has(prefix, " NCCL INFO ")) return SourceKind::nccl_log;
  const std::size_t first = prefix.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || prefix[first] != '{') return std::nullopt;
  if (has(prefix, "\"traceEvents\"") || has(prefix, "\"schemaVersion\"") ||
      has(prefix, "\"deviceProperties\"")) {
    return SourceKind::kineto;
  }
  if (has(prefix, "\"entries\"") || has(prefix, "\"comm_lib_version\"") ||
      has(prefix, "\"pg_config\"")) {
    return SourceKind::flight_recorder;
  }
  return std::nullopt;
}

}  // namespace

std::string_view name_of(SourceKind kind) {
  switch (kind) {
    case SourceKind::nccl_log:
      return "nccl-log";
    case SourceKind::kineto:
      return "kineto";
    case SourceKind::flight_recorder:
      return "flight-recorder";
  }
  return "?";
}

std::optional<SourceKind> parse_source_kind(std::string_view name) {
  for (const SourceKind kind :
       {SourceKind::nccl_log, SourceKind::kineto, SourceKind::flight_recorder}) {
    if (name == name_of(kind)) return kind;
  }
  return std::nullopt;
}

SourceKind detect_source_kind(const std::vector<std::string>& paths) {
  std::optional<SourceKind> first;
  for (const std::string& path : paths) {
    const std::string prefix = read_prefix(path, kSniffBytes);
    const auto kind = kind_of_content(prefix);
    if (!kind) {
      throw_bad_input(base_name(path), prefix.empty()
                                           ? "empty"
                                           : "not an NCCL log, PyTorch profiler trace or "
                                             "Flight Recorder dump (--from names the kind)");
    }
    if (first && *kind != *first) {
      throw_bad_input(base_name(path), fmt::format("a {} among {} files: import one kind at a time",
                                                   name_of(*kind), name_of(*first)));
    }
    first = kind;
  }
  return *first;
}

bool looks_like_workload(const std::string& path) {
  const std::string prefix = read_prefix(path, 256);
  return has(prefix, "\"format\":\"collbench-workload\"") ||
         has(prefix, "\"format\": \"collbench-workload\"");
}

void import_sources(SourceKind kind, const std::vector<std::string>& paths,
                    const ImportOptions& options, WorkloadWriter& writer) {
  switch (kind) {
    case SourceKind::nccl_log:
      import_nccl_logs(paths, options, writer);
      break;
    case SourceKind::kineto:
      import_kineto(paths, options, writer);
      break;
    case SourceKind::flight_recorder:
      import_flight_recorder(paths, options, writer);
      break;
  }
}

}  // namespace collbench::replay
