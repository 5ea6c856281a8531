// `collreport summary` on a sample file (collbench --json): the same table as on its CSV, a warning
// for a cut-off last line, one line and exit 2 for a bad file.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "collreport/commands/cli_run.hpp"
#include "support/csv_text.hpp"
#include "support/fixture_reports.hpp"
#include "support/sample_text.hpp"

namespace collbench::report {
namespace {

using nlohmann::json;

// Rows with samples around their p50; the not-measured rows without.
std::vector<ReportRow> rows_with_samples(std::vector<json>& lines) {
  std::vector<ReportRow> rows;
  lines = {fixtures::sample_run_line()};
  for (ReportRow row : fixtures::summary_known_rows()) {
    std::vector<std::vector<double>> ranks;
    if (row.status == kStatusOk) {
      for (int rank = 0; rank < row.ranks; ++rank) {
        ranks.push_back({row.time.p50_us, row.time.p50_us + 0.5, row.time.p50_us - 0.25});
      }
    }
    lines.push_back(fixtures::sample_case_line(row, ranks));
    row.time.samples = static_cast<int>(ranks.empty() ? 0 : 3);
    rows.push_back(row);
  }
  return rows;
}

TEST(SummaryOfSamples, SummaryOfASampleFileEqualsSummaryOfItsCsv) {
  std::vector<json> lines;
  const std::vector<ReportRow> rows = rows_with_samples(lines);
  // Named the other way round: the content decides, not the extension.
  const std::string samples_path =
      fixtures::write_temp_file("samples.csv", fixtures::sample_file_text(lines));
  const std::string csv_path = fixtures::write_temp_file("report.json", fixtures::to_csv(rows));
  for (const std::vector<std::string>& extra : {std::vector<std::string>{}, {"--markdown"}}) {
    std::vector<std::string> on_samples = {"summary", samples_path};
    std::vector<std::string> on_csv = {"summary", csv_path};
    on_samples.insert(on_samples.end(), extra.begin(), extra.end());
    on_csv.insert(on_csv.end(), extra.begin(), extra.end());
    const collreport::CliResult from_samples = collreport::run_cli(on_samples);
    const collreport::CliResult from_csv = collreport::run_cli(on_csv);
    EXPECT_EQ(from_samples.code, 0) << from_samples.err;
    EXPECT_EQ(from_samples.err, "");
    EXPECT_EQ(from_samples.out, from_csv.out);
    EXPECT_NE(from_samples.out.find(extra.empty() ? "all_reduce  nccl      4  float"
                                                  : "| all_reduce | nccl | 4 | float |"),
              std::string::npos)
        << from_samples.out;
  }
}

TEST(SummaryOfSamples, SummaryWarnsOfACutOffLastLine) {
  std::vector<json> lines;
  rows_with_samples(lines);
  const std::string text = fixtures::sample_file_text(lines);
  const std::string path = fixtures::write_temp_file("cut.json", text.substr(0, text.size() - 20));
  const collreport::CliResult result = collreport::run_cli({"summary", path});
  EXPECT_EQ(result.code, 0);
  EXPECT_EQ(result.err, "collreport: warning: " + path + ":" + std::to_string(lines.size()) +
                            ": the last line is cut off (a run interrupted while writing it?) and "
                            "was left out; " +
                            std::to_string(lines.size() - 2) + " case(s) read\n");
}

TEST(SummaryOfSamples, SummaryOfABadSampleFileIsOneLineAndExitTwo) {
  const std::string path = fixtures::write_temp_file(
      "bad.json",
      fixtures::sample_file_text({fixtures::sample_run_line(), json{{"type", "case"}}}));
  const collreport::CliResult result = collreport::run_cli({"summary", path});
  EXPECT_EQ(result.code, 2);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err, "collreport: error: " + path + ":2: no 'name' field\n");
}

}  // namespace
}  // namespace collbench::report
