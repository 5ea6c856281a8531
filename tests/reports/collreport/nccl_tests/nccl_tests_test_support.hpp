// Reports of the nccl-tests output fixtures and report rows built for the tests of
// `collreport nccl-tests` and `collreport beside`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reports/csv_reader.hpp"
#include "reports/report_row.hpp"
#include "support/nccl_tests_fixtures.hpp"

namespace collbench::fixtures {

// The rows `collreport nccl-tests` makes of fixture `name` (timestamp 2026-11-22T10:00:00Z).
report::Report nccl_tests_fixture_report(const std::string& name, const std::string& config = "");

// A measured all_reduce row on 8 GPUs of `algo` with just what beside reads: mean time and busbw.
report::ReportRow mean_row(const std::string& algo, std::uint64_t bytes, double time_us_mean,
                           double busbw_gbps);
// A report of `rows`, each at line index + 2 (after a header).
report::Report report_of(const std::string& path, const std::vector<report::ReportRow>& rows);

}  // namespace collbench::fixtures
