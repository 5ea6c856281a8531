// Reading the link peak back from a collbench_linkpeak CSV, through the report reader.
#include "telemetry/link_peak_table.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/errors.hpp"
#include "reports/csv_reader.hpp"
#include "reports/key_values.hpp"

namespace collbench {

std::string link_peak_config(int src, int dst, const std::string& direction) {
  return fmt::format("src={};dst={};direction={}", src, dst, direction);
}

std::string config_value(const std::string& config, const std::string& key) {
  return report::key_value(config, key).value_or("");
}

double link_peak_gbps(const std::vector<report::ReportRow>& rows, const std::string& source) {
  double peak_gbps = 0;
  bool found = false;
  for (const report::ReportRow& row : rows) {
    if (row.op != kLinkPeakOp || row.algo != kCopyEngineAlgo || row.status != report::kStatusOk ||
        config_value(row.config, "direction") != "uni" || row.busbw_gbps <= 0) {
      continue;
    }
    peak_gbps = found ? std::max(peak_gbps, row.busbw_gbps) : row.busbw_gbps;
    found = true;
  }
  if (!found) {
    throw UsageError(
        fmt::format("{}: no {} row with algo={}, direction=uni and status ok (write one with "
                    "collbench_linkpeak)",
                    source, kLinkPeakOp, kCopyEngineAlgo));
  }
  return peak_gbps;
}

double read_link_peak_gbps(const std::string& csv_path) {
  std::vector<report::ReportRow> rows;
  try {
    for (report::ReportLine& line : report::read_report(csv_path).rows)
      rows.push_back(std::move(line.row));
  } catch (const report::ReportError& error) {
    throw UsageError(error.what());  // already "FILE[:LINE]: what is wrong"
  }
  return link_peak_gbps(rows, csv_path);
}

}  // namespace collbench
