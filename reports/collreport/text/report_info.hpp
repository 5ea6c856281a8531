// Where a set of rows was measured, in one line for table headings: GPU, GPU counts, NCCL, date.
#pragma once

#include <string>
#include <vector>

#include "reports/report_row.hpp"

namespace collbench::collreport {

// e.g. "NVIDIA H200, 2-4 GPUs, NCCL 2.28.3, 2026-11-22"; several distinct values are joined
// with '/', dates shown as a range.
std::string describe_origin(const std::vector<report::ReportRow>& rows);

}  // namespace collbench::collreport
