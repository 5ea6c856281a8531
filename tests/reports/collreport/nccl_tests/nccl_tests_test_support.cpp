// nccl-tests fixtures and rows for the tests.
#include "collreport/nccl_tests/nccl_tests_test_support.hpp"

#include "nccl_tests/nccl_tests_rows.hpp"
#include "reports/nccl_tests_output.hpp"
#include "support/fixture_reports.hpp"

namespace collbench::fixtures {

report::Report nccl_tests_fixture_report(const std::string& name, const std::string& config) {
  collreport::NcclTestsConverter converter(config);
  converter.add(report::read_nccl_tests_output(nccl_tests_fixture(name)), "2026-11-22T10:00:00Z");
  report::Report report = converter.report();
  report.path = name;
  return report;
}

report::ReportRow mean_row(const std::string& algo, std::uint64_t bytes, double time_us_mean,
                           double busbw_gbps) {
  report::ReportRow row = measured_row("all_reduce", algo, 8, bytes, busbw_gbps, time_us_mean);
  row.time.mean_us = time_us_mean;  // beside reads the mean; measured_row sets it from p50
  row.busbw_gbps = busbw_gbps;
  return row;
}

report::Report report_of(const std::string& path, const std::vector<report::ReportRow>& rows) {
  report::Report report;
  report.path = path;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    report.rows.push_back({rows[i], static_cast<unsigned>(i + 2)});
  }
  return report;
}

}  // namespace collbench::fixtures
