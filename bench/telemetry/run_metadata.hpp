// What a run was measured on and with: written into every CSV row and the console header.
#pragma once

#include <string>
#include <vector>

#include "reports/report_row.hpp"
#include "telemetry/topology.hpp"

namespace collbench {

// The run's origin is a base so that every report row takes it whole (row.origin = metadata); the
// topology is for the console header and sample files.
struct RunMetadata : report::RunOrigin {
  Topology topology;  // GPUs, peer access and NVLinks of this node (empty without a GPU)
};

// This host's name (gethostname); "unknown" when it cannot be read.
std::string host_name();
// Reads host, GPUs, driver, CUDA runtime and NCCL versions. Works without a GPU.
RunMetadata collect_run_metadata();
// ISO 8601 UTC, e.g. 2026-11-22T10:15:02Z.
std::string utc_timestamp();
// A report row with its descriptive columns (timestamp now, host, GPU, versions, launch) filled
// from `metadata`: every tool that writes rows starts from this.
report::ReportRow row_with_metadata(const RunMetadata& metadata);

}  // namespace collbench
