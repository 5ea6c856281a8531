// One-line descriptions of where report rows were measured.
#include "text/report_info.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace collbench::collreport {
namespace {

std::string join(const std::set<std::string>& values) {
  std::string text;
  for (const std::string& value : values) {
    if (value.empty()) continue;
    text += (text.empty() ? "" : "/") + value;
  }
  return text.empty() ? "unknown" : text;
}

}  // namespace

std::string describe_origin(const std::vector<report::ReportRow>& rows) {
  std::set<std::string> gpus, nccl_versions, dates;
  int min_ranks = 0, max_ranks = 0;
  for (const report::ReportRow& row : rows) {
    gpus.insert(row.origin.gpu_name);
    nccl_versions.insert(row.origin.nccl_version);
    // ISO 8601 timestamps start with the date.
    if (row.timestamp.size() >= 10) dates.insert(row.timestamp.substr(0, 10));
    if (row.ranks > 0) {
      min_ranks = min_ranks == 0 ? row.ranks : std::min(min_ranks, row.ranks);
      max_ranks = std::max(max_ranks, row.ranks);
    }
  }
  const std::string gpu_counts = min_ranks == max_ranks
                                     ? fmt::format("{} GPUs", max_ranks)
                                     : fmt::format("{}-{} GPUs", min_ranks, max_ranks);
  std::string date_range = "unknown date";
  if (!dates.empty()) {
    date_range = dates.size() == 1 ? *dates.begin() : *dates.begin() + " to " + *dates.rbegin();
  }
  return fmt::format("{}, {}, NCCL {}, {}", join(gpus), gpu_counts, join(nccl_versions),
                     date_range);
}

}  // namespace collbench::collreport
