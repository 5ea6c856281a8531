// The link-peak CSV written by collbench_linkpeak (rows op=p2p_peak) and the one figure other
// tools take from it: the per-GPU link peak that --link-peak turns into the peak_fraction column.
#pragma once

#include <string>
#include <vector>

#include "reports/report_row.hpp"
#include "reports/schema.hpp"

namespace collbench {

// The names collbench_linkpeak writes and read_link_peak_gbps looks for; the op is the schema's.
using report::kLinkPeakOp;
inline constexpr const char* kCopyEngineAlgo = "copy_engine";  // cudaMemcpyPeerAsync
inline constexpr const char* kSmCopyAlgo = "sm_copy";          // a kernel pulling from the peer

// The config column of a link-peak row: "src=0;dst=1;direction=uni" (direction uni, bi or all).
std::string link_peak_config(int src, int dst, const std::string& direction);
// The value of `key` in a "k=v;k=v" config, or "" when the key is absent.
std::string config_value(const std::string& config, const std::string& key);

// The per-GPU link peak of `rows`: the highest busbw_gbps of the ok copy_engine rows with
// direction=uni (one GPU copying to one peer, nothing else running). Throws UsageError naming
// `source` when there is no such row.
double link_peak_gbps(const std::vector<report::ReportRow>& rows, const std::string& source);

// Reads a collbench_linkpeak CSV and returns link_peak_gbps of its rows. Throws UsageError (exit
// status 2 at the top level) with one line naming the file when it is missing, is not a valid
// report or holds no copy_engine uni p2p_peak row.
double read_link_peak_gbps(const std::string& csv_path);

}  // namespace collbench
