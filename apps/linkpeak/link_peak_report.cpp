// Rows, matrices and the summary line of the link-peak probe (pure functions of the results).
#include "link_peak_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>

#include "core/errors.hpp"
#include "core/metrics.hpp"
#include "telemetry/link_peak_table.hpp"

namespace collbench::link_peak {
namespace {

// bytes / us = MB/s; / 1e3 = GB/s (10^9 bytes, as nccl-tests and NCCL report).
double gbps(std::size_t bytes, double time_us) {
  return time_us > 0 ? static_cast<double>(bytes) / time_us / 1e3 : 0.0;
}

int config_int(const std::string& config, const std::string& key) {
  const std::string value = config_value(config, key);
  try {
    return value.empty() ? -1 : std::stoi(value);
  } catch (const std::exception&) {
    return -1;
  }
}

// The ok rows of one algo and direction, by (src, dst).
std::map<std::pair<int, int>, double> bandwidth_by_pair(const std::vector<report::ReportRow>& rows,
                                                        const std::string& algo,
                                                        const std::string& direction) {
  std::map<std::pair<int, int>, double> by_pair;
  for (const report::ReportRow& row : rows) {
    if (row.op != kLinkPeakOp || row.algo != algo || row.status != report::kStatusOk ||
        config_value(row.config, "direction") != direction) {
      continue;
    }
    by_pair[{config_int(row.config, "src"), config_int(row.config, "dst")}] = row.busbw_gbps;
  }
  return by_pair;
}

}  // namespace

report::ReportRow make_row(const RunMetadata& metadata, const ProbeSettings& settings,
                           CopyMethod method, Direction direction, int group_gpus,
                           const TransferResult& result) {
  report::ReportRow row = row_with_metadata(metadata);
  row.op = kLinkPeakOp;
  row.algo = method_name(method);
  row.ranks = group_gpus;
  row.dtype = "uint8";  // a copy moves bytes; count = bytes
  row.redop = "none";
  row.root = -1;
  row.in_place = false;
  row.bytes = settings.bytes;
  row.count = settings.bytes;
  row.warmup = settings.warmup;
  row.iters = settings.iters;
  row.agg_iters = 1;
  row.graph = 0;
  row.config =
      link_peak_config(result.transfer.src, result.transfer.dst, direction_name(direction));

  if (!result.skipped_reason.empty()) {
    row.status = report::kStatusSkipped;
    row.reason = result.skipped_reason;
    return row;
  }
  if (result.iteration_us.empty()) {
    row.status = report::kStatusError;
    row.reason = "no timed iterations";
    return row;
  }
  row.time = time_stats(result.iteration_us);
  // The median: one slow round (a clock change, another process) should not set the peak.
  row.algbw_gbps = gbps(settings.bytes, row.time.p50_us);
  row.busbw_gbps = row.algbw_gbps;
  row.wrong_elements = result.wrong_words;
  if (result.wrong_words > 0) {
    row.status = report::kStatusError;
    row.reason = fmt::format("copy wrong in {} of {} 4-byte words", result.wrong_words,
                             result.checked_words);
  }
  return row;
}

std::string format_bandwidth_matrix(const std::vector<report::ReportRow>& rows,
                                    const std::string& algo, const std::string& direction,
                                    int gpu_count) {
  const auto by_pair = bandwidth_by_pair(rows, algo, direction);
  auto cell = [&](int src, int dst) -> std::string {
    if (src == dst) return "-";
    const auto found = by_pair.find({src, dst});
    return found == by_pair.end() ? "n/a" : fmt::format("{:.1f}", found->second);
  };
  std::size_t width = 8;
  for (int a = 0; a < gpu_count; ++a) {
    for (int b = 0; b < gpu_count; ++b) width = std::max(width, cell(a, b).size() + 2);
  }
  std::string text = fmt::format("{:<{}}", "src\\dst", width);
  for (int b = 0; b < gpu_count; ++b) text += fmt::format("{:>{}}", fmt::format("GPU{}", b), width);
  text += '\n';
  for (int a = 0; a < gpu_count; ++a) {
    text += fmt::format("{:<{}}", fmt::format("GPU{}", a), width);
    for (int b = 0; b < gpu_count; ++b) text += fmt::format("{:>{}}", cell(a, b), width);
    text += '\n';
  }
  return text;
}

std::string format_ring(const std::vector<report::ReportRow>& rows, const std::string& algo) {
  std::string text;
  for (const auto& [pair, bandwidth_gbps] : bandwidth_by_pair(rows, algo, "all")) {
    if (!text.empty()) text += ", ";
    text += fmt::format("{}->{} {:.1f}", pair.first, pair.second, bandwidth_gbps);
  }
  return text.empty() ? "n/a" : text;
}

std::string link_peak_summary(const std::vector<report::ReportRow>& rows) {
  double best_sm_gbps = 0;
  for (const auto& [pair, bandwidth_gbps] : bandwidth_by_pair(rows, kSmCopyAlgo, "uni")) {
    best_sm_gbps = std::max(best_sm_gbps, bandwidth_gbps);
  }
  const std::string sm_note =
      best_sm_gbps > 0 ? fmt::format("; best sm_copy one direction: {:.1f} GB/s", best_sm_gbps)
                       : "";
  try {
    const double peak_gbps = link_peak_gbps(rows, "this run");
    return fmt::format(
        "per-GPU link peak: {:.1f} GB/s (best copy_engine copy, one pair, one direction{})",
        peak_gbps, sm_note);
  } catch (const UsageError&) {
    return fmt::format("per-GPU link peak: unknown (no copy_engine one-direction copy measured{})",
                       sm_note);
  }
}

}  // namespace collbench::link_peak
