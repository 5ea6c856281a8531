// Collection of the run's metadata.
#include "telemetry/run_metadata.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>
#include <unistd.h>

#include <ctime>

#include "build_info.hpp"
#include "runtime/cuda_resources.hpp"
#include "runtime/nccl_communicator.hpp"

namespace collbench {
namespace {

std::string cuda_version_text(int version) {
  return fmt::format("{}.{}", version / 1000, (version % 1000) / 10);
}

}  // namespace

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "unknown";
  return name;
}

RunMetadata collect_run_metadata() {
  RunMetadata metadata;
  metadata.host = host_name();
  metadata.collbench_version = kCollbenchVersion;
  metadata.nccl_version = nccl_runtime_version();
  int runtime = 0;
  cudaRuntimeGetVersion(&runtime);
  metadata.cuda_runtime = cuda_version_text(runtime);
  metadata.driver = driver_version_string();
  if (visible_gpu_count() > 0) metadata.topology = probe_topology();
  metadata.gpu_name = metadata.topology.gpus.empty() ? "none" : metadata.topology.gpus.front().name;
  return metadata;
}

std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

report::ReportRow row_with_metadata(const RunMetadata& metadata) {
  report::ReportRow row;
  row.timestamp = utc_timestamp();
  row.origin = metadata;  // the origin part, whole
  return row;
}

}  // namespace collbench
