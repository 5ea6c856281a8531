// The verdict line, rule lines and tables of `collreport ranks`.
#include "ranks/ranks_output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "reports/row_key.hpp"
#include "text/format.hpp"
#include "text/key_columns.hpp"
#include "text/report_info.hpp"

namespace collbench::collreport {
namespace {

// "LATE (gpu)", "waiting" or nothing.
std::string verdict_cell(const stats::RankArrivalJudgement& verdict) {
  if (verdict.late) return fmt::format("LATE ({})", stats::late_cause_name(verdict.cause));
  return verdict.waiting ? "waiting" : "";
}

std::vector<std::string> judged_rank_cells(const CaseRanks& c, std::size_t rank) {
  const stats::RankArrival& arrival = c.arrivals[rank];
  const stats::RankArrivalJudgement& verdict = c.judgement.ranks[rank];
  return {
      std::to_string(rank),         format_us(arrival.gpu_lateness_us),
      format_us(arrival.waited_us), arrival.host_known ? format_us(arrival.host_lateness_us) : "-",
      format_us(verdict.limit_us),  arrival.host_known ? format_us(verdict.host_limit_us) : "-",
      verdict_cell(verdict)};
}

// The named ranks, most late cases first, then the sporadic ones.
std::vector<const RankSummary*> by_late_cases(const RanksAnalysis& analysis, bool named) {
  std::vector<const RankSummary*> ranks;
  for (const RankSummary& rank : analysis.ranks) {
    if (rank.late > 0 && rank.named == named) ranks.push_back(&rank);
  }
  std::stable_sort(ranks.begin(), ranks.end(),
                   [](const RankSummary* a, const RankSummary* b) { return a->late > b->late; });
  return ranks;
}

std::string named_list(const RanksAnalysis& analysis) {
  std::string text;
  for (const RankSummary* rank : by_late_cases(analysis, true)) {
    text += fmt::format("{}rank {} ({}) in {} of {}{}", text.empty() ? "" : ", ", rank->rank,
                        stats::late_cause_name(rank->dominant_cause()), rank->late, rank->judged,
                        text.empty() ? " cases" : "");
  }
  return text;
}

std::string sporadic_list(const RanksAnalysis& analysis) {
  std::string text;
  for (const RankSummary* rank : by_late_cases(analysis, false)) {
    text += fmt::format("{}rank {} in {} of {}", text.empty() ? "sporadic: " : ", ", rank->rank,
                        rank->late, rank->judged);
  }
  return text.empty() ? "" : text + "; ";
}

std::vector<std::string> rule_lines(const RanksAnalysis& analysis, const RanksOptions& options) {
  const stats::ArrivalRule& rule = options.rule;
  return {fmt::format(
              "late: GPU lateness (a sample's longest time minus the rank's own, mean over the "
              "samples) above max({:g} us, {} of the op time, the other ranks' median + {:g} x "
              "their spread), or host lateness (its launch after its host's earliest) above "
              "the same with {:g} us; waiting: not late, and waited longer than that limit",
              rule.floor_us, format_percent(rule.op_share), rule.spread_factor, rule.host_floor_us),
          fmt::format(
              "a rank is named when late in at least {} of the {} judged cases (max(2, {})): "
              "a fault lasts, a one-off is noise; times per operation in us",
              analysis.min_late_cases, analysis.judged_cases(), format_percent(options.min_share))};
}

std::string origin(const RanksAnalysis& analysis) {
  std::vector<report::ReportRow> rows;
  for (const CaseRanks& c : analysis.cases) rows.push_back(c.row);
  return describe_origin(rows);
}

}  // namespace

Table ranks_case_table(const RanksAnalysis& analysis) {
  Table table;
  add_key_columns(table.columns, KeyColumns::kCase);
  table.columns.insert(table.columns.end(), {{"rank", Align::kRight},
                                             {"GPU late (us)", Align::kRight},
                                             {"waited (us)", Align::kRight},
                                             {"host late (us)", Align::kRight},
                                             {"limit (us)", Align::kRight},
                                             {"host limit (us)", Align::kRight},
                                             {"verdict"}});
  for (const CaseRanks& c : analysis.cases) {
    std::vector<std::string> key;
    add_key_cells(key, report::row_key(c.row), KeyColumns::kCase);
    if (!c.judged) {
      std::vector<std::string> cells = key;
      cells.insert(cells.end(), {"-", "", "", "", "", "", c.why_not_judged});
      table.add_row(std::move(cells));
      continue;
    }
    for (std::size_t rank = 0; rank < c.arrivals.size(); ++rank) {
      std::vector<std::string> cells = key;
      const std::vector<std::string> figures = judged_rank_cells(c, rank);
      cells.insert(cells.end(), figures.begin(), figures.end());
      table.add_row(std::move(cells));
    }
  }
  return table;
}

Table ranks_summary_table(const RanksAnalysis& analysis) {
  Table table;
  table.columns = {{"rank", Align::kRight},
                   {"judged", Align::kRight},
                   {"late", Align::kRight},
                   {"host", Align::kRight},
                   {"gpu", Align::kRight},
                   {"unknown", Align::kRight},
                   {"waiting", Align::kRight},
                   {"mean GPU late (us)", Align::kRight},
                   {"verdict"}};
  for (const RankSummary& rank : analysis.ranks) {
    const std::string verdict =
        rank.named      ? fmt::format("LATE ({})", stats::late_cause_name(rank.dominant_cause()))
        : rank.late > 0 ? "sporadic"
                        : "";
    table.add_row({std::to_string(rank.rank), std::to_string(rank.judged),
                   std::to_string(rank.late), std::to_string(rank.late_host),
                   std::to_string(rank.late_gpu), std::to_string(rank.late_unknown),
                   std::to_string(rank.waiting), format_us(rank.mean_gpu_lateness_us), verdict});
  }
  return table;
}

std::string ranks_verdict_line(const RanksAnalysis& analysis) {
  const std::string counts = sporadic_list(analysis) + counted_cases(analysis);
  if (analysis.named_count() == 0) {
    return fmt::format("collreport ranks: PASS: no late rank; {}", counts);
  }
  return fmt::format("collreport ranks: LATE: {}; {}", named_list(analysis), counts);
}

std::string ranks_text(const RanksAnalysis& analysis, const RanksOptions& options) {
  const std::vector<std::string> rules = rule_lines(analysis, options);
  return ranks_verdict_line(analysis) + "\n" + origin(analysis) + "\n" + rules[0] + "\n" +
         rules[1] + "\n\n" + render_text(ranks_case_table(analysis)) + "\n" +
         render_text(ranks_summary_table(analysis));
}

std::string ranks_markdown(const RanksAnalysis& analysis, const RanksOptions& options) {
  const std::vector<std::string> rules = rule_lines(analysis, options);
  return fmt::format("### collreport ranks: {}\n\n{}\n\n{}\n\n{}\n\n", origin(analysis),
                     ranks_verdict_line(analysis), rules[0], rules[1]) +
         render_markdown(ranks_summary_table(analysis)) + "\n" +
         render_markdown(ranks_case_table(analysis));
}

}  // namespace collbench::collreport
