// collbench --repeat's closing lines: per case, the spread of its passes' p50.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "collbench/sweep_plan.hpp"
#include "output/case_sinks.hpp"
#include "reports/report_row.hpp"

namespace collbench {
namespace {

std::string printed(const PassSpreadSummary& summary, std::size_t listed) {
  std::FILE* file = std::tmpfile();
  summary.print(file, listed);
  std::rewind(file);
  std::string text;
  char buffer[256];
  while (std::fgets(buffer, sizeof(buffer), file)) text += buffer;
  std::fclose(file);
  return text;
}

void feed(PassSpreadSummary& summary, const Case& c, int pass, double p50_us,
          const char* status = report::kStatusOk) {
  Case passed = c;
  passed.repeat = pass;
  CaseOutcome outcome;
  outcome.status = status;
  CaseMetrics metrics;
  metrics.time.p50_us = p50_us;
  summary.on_case(passed, outcome, metrics);
}

TEST(PassSpreadSummary, NamesTheMedianAndTheWidestSpreads) {
  Options options;
  options.common.gpu_counts = "2";
  options.min_bytes = 1024;
  options.max_bytes = 4096;
  options.in_place = InPlaceMode::out_of_place;
  const std::vector<Case> cases = build_sweep(options, 2, /*listing=*/true);  // 1, 2 and 4 KiB
  ASSERT_EQ(cases.size(), 3u);
  PassSpreadSummary summary;
  EXPECT_EQ(printed(summary, 5), "");  // nothing measured twice: nothing to say
  const double p50s[3][3] = {{10, 11, 10.5}, {20, 20, 20}, {30, 45, 30}};
  for (int pass = 0; pass < 3; ++pass) {
    for (std::size_t i = 0; i < cases.size(); ++i) feed(summary, cases[i], pass, p50s[i][pass]);
  }
  feed(summary, cases[1], 3, 99, report::kStatusTimeout);  // a failed pass has no time to compare
  const std::string text = printed(summary, 2);
  EXPECT_NE(text.find("between passes: 3 cases; p50 spread (slowest pass / fastest - 1): median "
                      "10.0%, widest:"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("50.0%  all_reduce nccl float sum 2r 4 KiB"), std::string::npos) << text;
  EXPECT_NE(text.find("10.0%  all_reduce nccl float sum 2r 1 KiB"), std::string::npos) << text;
  EXPECT_EQ(text.find("2 KiB"), std::string::npos) << "only the 2 widest are listed:\n" << text;
  EXPECT_EQ(text.find("pass 2"), std::string::npos) << "cases are named by their first pass:\n"
                                                    << text;
}

}  // namespace
}  // namespace collbench
