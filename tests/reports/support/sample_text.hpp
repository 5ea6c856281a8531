// Sample files (collbench --json) for the tests, built from report rows the way JsonSamplesSink
// writes them, so that they follow the schema.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reports/report_row.hpp"

namespace collbench::fixtures {

// The run line of a 4-GPU single-process run.
nlohmann::json sample_run_line();
// The case line of `row` with each rank's own samples (index = rank): row.time.samples becomes
// their count and samples_us, per sample, the slowest rank's. No ranks: a case that was not
// measured.
nlohmann::json sample_case_line(report::ReportRow row,
                                const std::vector<std::vector<double>>& rank_samples_us);
// The lines, each followed by a newline.
std::string sample_file_text(const std::vector<nlohmann::json>& lines);

}  // namespace collbench::fixtures
