// `collreport merge`: concatenation round-trips through the reader; a repeated measurement is
// refused.
#include "rows/merge.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>

#include "reports/csv_reader.hpp"
#include "reports/csv_writer.hpp"
#include "rows/repeats.hpp"
#include "support/fixture_reports.hpp"

namespace collbench::collreport {
namespace {

TEST(Merge, RoundTripsTwoHalvesOfAReport) {
  const std::vector<report::ReportRow> rows = fixtures::baseline_rows();
  const std::size_t half = rows.size() / 2;
  const std::vector<report::ReportRow> first(rows.begin(), rows.begin() + half);
  const std::vector<report::ReportRow> second(rows.begin() + half, rows.end());
  const report::Report merged =
      merge_reports({report::parse_report("a.csv", fixtures::to_csv(first)),
                     report::parse_report("b.csv", fixtures::to_csv(second))},
                    "merged.csv");
  const std::string text = report_csv(merged);
  // The merged file is byte for byte what writing all rows at once gives, and reads back.
  EXPECT_EQ(text, fixtures::to_csv(rows));
  const report::Report read_back = report::parse_report("merged.csv", text);
  ASSERT_EQ(read_back.rows.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(report::format_row(read_back.rows[i].row), report::format_row(rows[i]));
  }
}

TEST(Merge, RefusesARowPresentInTwoReports) {
  const std::vector<report::ReportRow> rows = fixtures::baseline_rows();
  const std::vector<report::ReportRow> overlap(rows.begin() + 3, rows.begin() + 5);
  try {
    merge_reports({report::parse_report("a.csv", fixtures::to_csv(rows)),
                   report::parse_report("b.csv", fixtures::to_csv(overlap))},
                  "merged.csv");
    FAIL() << "overlapping reports were merged";
  } catch (const report::ReportError& error) {
    EXPECT_EQ(error.file(), "b.csv");
    EXPECT_EQ(error.line(), 2u);
    EXPECT_NE(std::string(error.what()).find("same independent variables as a.csv:5"),
              std::string::npos)
        << error.what();
  }
}

// Runs of one sweep in three processes (the first with two passes of its own) become one run of
// four passes: every case pools all four, in the order the processes ran.
TEST(MergeAsPasses, NumbersEachProcessAfterThoseBefore) {
  // One process's rows of 1, 2 and 4 MiB all_reduce, at `factor` times a 100 us median.
  const auto process_rows = [](double factor, int pass) {
    std::vector<report::ReportRow> rows;
    for (std::uint64_t mib : {1, 2, 4}) {
      rows.push_back(
          fixtures::measured_row("all_reduce", "nccl", 2, mib << 20, 50 / factor, 100 * factor));
      rows.back().repeat = pass;
    }
    return rows;
  };
  std::vector<report::ReportRow> two_passes = process_rows(1, 0);
  for (const report::ReportRow& row : process_rows(2, 1)) two_passes.push_back(row);
  const report::Report merged =
      merge_as_passes({report::parse_report("a.csv", fixtures::to_csv(two_passes)),
                       report::parse_report("b.csv", fixtures::to_csv(process_rows(3, 0))),
                       report::parse_report("c.csv", fixtures::to_csv(process_rows(4, 0)))},
                      "merged.csv");
  ASSERT_EQ(merged.rows.size(), 12u);
  std::set<int> passes;
  for (const report::ReportLine& line : merged.rows) passes.insert(line.row.repeat);
  EXPECT_EQ(passes, (std::set<int>{0, 1, 2, 3}));
  const report::Report read_back = report::parse_report("merged.csv", report_csv(merged));
  const std::vector<PooledCase> cases = pool_repeats(read_back);
  ASSERT_EQ(cases.size(), 3u);
  for (const PooledCase& pooled : cases) {
    ASSERT_EQ(pooled.passes, 4u);
    EXPECT_EQ(pooled.pass_p50_us, (std::vector<double>{100, 200, 300, 400}));
    EXPECT_DOUBLE_EQ(pooled.spread(), 3.0);
  }
}

// Without --as-passes the same three single-pass runs are one measurement three times: refused.
TEST(MergeAsPasses, PlainMergeStillRefusesTheSameRunTwice) {
  std::vector<report::ReportRow> rows = fixtures::baseline_rows();
  rows.resize(2);
  const std::string text = fixtures::to_csv(rows);
  EXPECT_THROW(
      merge_reports({report::parse_report("a.csv", text), report::parse_report("b.csv", text)},
                    "merged.csv"),
      report::ReportError);
  EXPECT_EQ(
      merge_as_passes({report::parse_report("a.csv", text), report::parse_report("b.csv", text)},
                      "merged.csv")
          .rows.size(),
      4u);
}

// --across nccl_proto: a run under NCCL_PROTO=Simple pairs with the default row by row; the other
// parts of a config stay, and a report holding both protocols cannot be folded into one.
TEST(WithoutConfigSetting, DropsOnlyThatSetting) {
  std::vector<report::ReportRow> rows = {
      fixtures::measured_row("all_reduce", "nccl", 4, 1024, 1, 10),
      fixtures::measured_row("alltoallv", "nccl", 4, 1024, 1, 10),
      fixtures::measured_row("all_gather", "nccl", 4, 1024, 1, 10)};
  rows[0].config = "nccl_proto=Simple";
  rows[1].config = "a2av_spread=1;nccl_proto=Simple";
  rows[2].config = "nccl_algo=Ring;nccl_proto=Simple;split=MOD 2";
  const auto dropping = [&rows](const std::string& setting) {
    return without_config_setting(report::parse_report("b.csv", fixtures::to_csv(rows)), setting);
  };
  const report::Report dropped = dropping("nccl_proto");
  EXPECT_EQ(dropped.rows[0].row.config, "");
  EXPECT_EQ(dropped.rows[1].row.config, "a2av_spread=1");
  EXPECT_EQ(dropped.rows[2].row.config, "nccl_algo=Ring;split=MOD 2");
  const report::Report untouched = dropping("nccl_algo");
  EXPECT_EQ(untouched.rows[0].row.config, "nccl_proto=Simple");
  EXPECT_EQ(untouched.rows[2].row.config, "nccl_proto=Simple;split=MOD 2");

  // A setting whose name starts like it stays; empty parts (a trailing ';') go.
  rows[0].config = "nccl_protocol=x;nccl_proto=Simple;";
  rows[1].config = "nccl_proto=Simple;";
  const report::Report prefixed = dropping("nccl_proto");
  EXPECT_EQ(prefixed.rows[0].row.config, "nccl_protocol=x");
  EXPECT_EQ(prefixed.rows[1].row.config, "");
  EXPECT_TRUE(has_config_setting(prefixed, "nccl_protocol"));
  EXPECT_FALSE(has_config_setting(prefixed, "nccl_proto"));
  EXPECT_FALSE(has_config_setting(prefixed, "protocol"));

  rows[1] = rows[0];
  rows[0].config = "nccl_proto=Simple";
  rows[1].config = "nccl_proto=LL";
  try {
    dropping("nccl_proto");
    ADD_FAILURE() << "two protocols of one case were folded into one";
  } catch (const report::ReportError& error) {
    EXPECT_EQ(error.line(), 3u);
    EXPECT_NE(std::string(error.what())
                  .find("with nccl_proto set aside (--across), the same case "
                        "as line 2"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace collbench::collreport
