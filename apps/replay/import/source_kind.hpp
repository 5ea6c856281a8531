// The kinds of source an import reads, told apart by their content (the first 64 KiB,
// decompressed): NCCL logs, PyTorch profiler traces, Flight Recorder dumps; and the workload
// files collbench_replay writes itself.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "import/import_options.hpp"
#include "workload/workload_writer.hpp"

namespace collbench::replay {

enum class SourceKind { nccl_log, kineto, flight_recorder };

std::string_view name_of(SourceKind kind);
std::optional<SourceKind> parse_source_kind(std::string_view name);  // "nccl-log", ...

// Throws UsageError naming a file of no known kind, or of a kind other than the first file's.
SourceKind detect_source_kind(const std::vector<std::string>& paths);
// Whether `path` starts like a workload file ({"format":"collbench-workload", ...).
bool looks_like_workload(const std::string& path);

void import_sources(SourceKind kind, const std::vector<std::string>& paths,
                    const ImportOptions& options, WorkloadWriter& writer);

}  // namespace collbench::replay
