// Text and Markdown output of `collreport summary`.
#include "summary/summary_output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "summary/pass_spread.hpp"
#include "summary/summary.hpp"
#include "text/report_info.hpp"
#include "text/table.hpp"

namespace collbench::collreport {
namespace {

// Cases listed in the table of between-pass spreads (the widest).
constexpr std::size_t kListedPassSpreads = 10;

// The second table, for reports measured in several passes: the widest spreads.
std::string pass_spread_section(const report::Report& report, bool markdown) {
  const std::vector<CaseSpread> spreads = pass_spreads(report);
  if (spreads.empty()) return "";
  const std::size_t listed = std::min(spreads.size(), kListedPassSpreads);
  const Table table = pass_spread_table(spreads, listed);
  const std::string heading = pass_spread_heading(spreads, listed);
  return markdown ? "\n" + heading + "\n\n" + render_markdown(table)
                  : "\n" + heading + "\n" + render_text(table);
}

std::string summary_document(const report::Report& report, bool markdown) {
  std::vector<report::ReportRow> rows;
  for (const report::ReportLine& line : report.rows) rows.push_back(line.row);
  const Table table = summary_table(summarize(rows));
  const bool intervals = std::any_of(
      rows.begin(), rows.end(), [](const report::ReportRow& row) { return row.has_interval(); });
  const std::string interval_note =
      intervals ? "; ± = half the median's confidence interval, in percent of p50" : "";
  const std::string tables =
      markdown ? fmt::format(
                     "### collreport summary: {}\n\nbusbw in GB/s; sizes where 50% and 90% of the "
                     "peak are first reached; latency floor = p50 time at the smallest size{}\n\n",
                     describe_origin(rows), interval_note) +
                     render_markdown(table)
               : describe_origin(rows) + interval_note + "\n" + render_text(table);
  return tables + pass_spread_section(report, markdown);
}

}  // namespace

std::string summary_text(const report::Report& report) {
  return summary_document(report, false);
}

std::string summary_markdown(const report::Report& report) {
  return summary_document(report, true);
}

}  // namespace collbench::collreport
