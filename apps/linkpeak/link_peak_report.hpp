// From link-peak measurements to report rows (THE CSV schema, op p2p_peak) and the console
// output: one bandwidth matrix per method and direction, and the per-GPU link peak line.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "link_peak_probe.hpp"
#include "reports/report_row.hpp"
#include "telemetry/run_metadata.hpp"

namespace collbench::link_peak {

struct ProbeSettings {
  std::size_t bytes = 0;
  int warmup = 0;
  int iters = 0;
};

// One CSV row for one transfer: bandwidth (algbw = busbw) is bytes / median time, per direction;
// ranks = GPUs taking part in the group. Status skipped with the reason when not measured, error
// when the copied data was wrong.
report::ReportRow make_row(const RunMetadata& metadata, const ProbeSettings& settings,
                           CopyMethod method, Direction direction, int group_gpus,
                           const TransferResult& result);

// Bandwidth (GB/s) per source row and destination column for one algo and direction (uni or bi),
// from rows as make_row writes them: "-" on the diagonal, "n/a" where there is no ok row.
std::string format_bandwidth_matrix(const std::vector<report::ReportRow>& rows,
                                    const std::string& algo, const std::string& direction,
                                    int gpu_count);
// The all-GPUs-at-once ring for one algo: "0->1 385.2, 1->2 384.9, ..." per transfer.
std::string format_ring(const std::vector<report::ReportRow>& rows, const std::string& algo);

// "per-GPU link peak: X GB/s (...)": the best single-pair, one-direction copy-engine bandwidth
// (the figure read_link_peak_gbps takes from the CSV), with the best sm_copy one beside it.
std::string link_peak_summary(const std::vector<report::ReportRow>& rows);

}  // namespace collbench::link_peak
