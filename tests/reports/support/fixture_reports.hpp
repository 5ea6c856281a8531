// Synthetic collbench reports for the report tests: a realistic baseline sweep, the same sweep
// with noise, with an injected regression and with wrong elements, and a hand-chosen curve whose
// summary figures are known. tests/reports/fixtures/ holds these as files (see its README.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reports/report_row.hpp"

namespace collbench::fixtures {

using report::ReportRow;

// A measured (status ok) collective row with the fixture machine's metadata.
ReportRow measured_row(const std::string& op, const std::string& algo, int ranks,
                       std::uint64_t bytes, double busbw_gbps, double p50_us);

// all_reduce (nccl, ring, ring_sendrecv, oneshot) and all_gather on 2 and 4 GPUs, 8 B to 1 GiB
// in steps of 8x, an all_reduce replayed from CUDA graphs, dp_step rows, a skipped and an oom row.
std::vector<ReportRow> baseline_rows();
// Every time scaled by 1 +- up to `large_amplitude` (sizes >= 1 MiB) or `small_amplitude`
// (smaller sizes), busbw and algbw by the inverse; deterministic.
std::vector<ReportRow> with_noise(std::vector<ReportRow> rows, double small_amplitude,
                                  double large_amplitude);
// busbw and algbw of all_reduce/nccl/4-GPU rows of at least `min_bytes` scaled by
// (1 - `fraction`), their times by the inverse.
std::vector<ReportRow> with_busbw_regression(std::vector<ReportRow> rows, double fraction,
                                             std::uint64_t min_bytes);
// `count` wrong elements in the all_reduce/ring/4-GPU row of 2 MiB.
std::vector<ReportRow> with_wrong_elements(std::vector<ReportRow> rows, std::uint64_t count);
// A few curves with hand-chosen numbers; summary_test.cpp states their expected summary.
std::vector<ReportRow> summary_known_rows();

// A report file's text: the schema header and one line per row, as CsvWriter writes them; with an
// older `version`, as collbench wrote that version (its columns only: no intervals in version 1).
std::string to_csv(const std::vector<ReportRow>& rows, int version = report::kSchemaVersion);

struct FixtureFile {
  std::string name;  // file name in tests/reports/fixtures/
  std::string text;
};
// base.csv, base_v1.csv (the same in schema version 1, as the committed baselines are),
// base_v2.csv (in schema version 2: the median's interval, not the mean's),
// new_noise.csv, new_regressed.csv (10% busbw loss at >= 64 MiB), new_wrong.csv,
// summary_known.csv; tests/reports/fixtures/README.md says what comparing them gives.
std::vector<FixtureFile> fixture_files();

}  // namespace collbench::fixtures
