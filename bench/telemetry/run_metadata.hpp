// What a run was measured on and with: written into every CSV row and the console header.
#pragma once

#include <string>
#include <vector>

#include "report_row.hpp"
#include "telemetry/topology.hpp"

namespace collbench {

struct RunMetadata {
  std::string host;
  std::string gpu_name;  // of GPU 0; "none" without a GPU
  std::string driver;
  std::string cuda_runtime;
  std::string nccl_version;
  std::string collbench_version;
  std::string launch_mode = "single_process";
  int nodes = 1;
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
