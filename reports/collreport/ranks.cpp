// Per-rank times of a sample file's cases, the slowest rank and stragglers.
#include "ranks.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "format.hpp"
#include "report_info.hpp"
#include "row_key.hpp"
#include "statistics.hpp"

namespace collbench::collreport {
namespace {

// Each rank is measured against the median of the *other* ranks' medians. Against a mean, or a
// median that includes the rank itself, one slow rank would raise its own reference (with 2 to 4
// ranks, by much) and hide; the median of the others ignores that rank and, from 3 others on, a
// second bad one among them too. Each rank's own median, not its mean, for the same reason as the
// report's p50: a few stray slow samples do not move it.
CaseRanks analyze_case(const report::SampleCase& c, const RanksOptions& options) {
  CaseRanks result;
  result.row = c.row;
  result.line = c.line;
  for (const std::vector<double>& samples : c.rank_samples_us) {
    result.ranks.push_back({stats::median(samples), stats::moments(samples).mean});
  }
  result.has_lateness = !c.rank_lateness_us.empty();
  if (result.has_lateness) {
    result.late_limit_us =
        std::max(options.late_floor_us, options.late_share * stats::median(c.samples_us));
    for (std::size_t rank = 0; rank < result.ranks.size(); ++rank) {
      RankTimes& times = result.ranks[rank];
      times.mean_lateness_us = stats::moments(c.rank_lateness_us[rank]).mean;
      times.late = times.mean_lateness_us > result.late_limit_us;
    }
  }
  for (std::size_t rank = 0; rank < result.ranks.size(); ++rank) {
    std::vector<double> others;
    for (std::size_t other = 0; other < result.ranks.size(); ++other) {
      if (other != rank) others.push_back(result.ranks[other].median_us);
    }
    RankTimes& times = result.ranks[rank];
    const double reference_us = stats::median(others);
    times.excess = reference_us > 0 ? times.median_us / reference_us - 1 : 0;
    times.slow = times.excess > options.threshold;
    times.straggler = times.slow || times.late;
    if (times.median_us > result.ranks[result.slowest_rank].median_us) {
      result.slowest_rank = static_cast<int>(rank);
    }
  }
  return result;
}

std::vector<RankSummary> summarize_ranks(const std::vector<CaseRanks>& cases) {
  std::vector<RankSummary> summaries;
  std::vector<std::vector<double>> excesses, lateness;
  for (const CaseRanks& c : cases) {
    for (std::size_t rank = 0; rank < c.ranks.size(); ++rank) {
      if (rank >= summaries.size()) {
        summaries.push_back({static_cast<int>(rank)});
        excesses.emplace_back();
        lateness.emplace_back();
      }
      ++summaries[rank].cases;
      summaries[rank].slowest += c.slowest_rank == static_cast<int>(rank) ? 1 : 0;
      summaries[rank].stragglers += c.ranks[rank].straggler ? 1 : 0;
      summaries[rank].late += c.ranks[rank].late ? 1 : 0;
      excesses[rank].push_back(c.ranks[rank].excess);
      if (c.has_lateness) lateness[rank].push_back(c.ranks[rank].mean_lateness_us);
    }
  }
  for (std::size_t rank = 0; rank < summaries.size(); ++rank) {
    summaries[rank].median_excess = stats::median(excesses[rank]);
    if (!lateness[rank].empty())
      summaries[rank].mean_lateness_us = stats::moments(lateness[rank]).mean;
  }
  return summaries;
}

std::string skipped_cases(const RanksAnalysis& analysis) {
  return fmt::format("{} case(s) compared; skipped: {} with one rank, {} not measured",
                     analysis.cases.size(), analysis.single_rank_cases, analysis.unmeasured_cases);
}

std::string rule_line(const RanksAnalysis& analysis, const RanksOptions& options) {
  const std::string late = analysis.has_lateness()
                               ? fmt::format(
                                     ", or whose mean lateness (its launch of a sample after the "
                                     "earliest rank's) is above "
                                     "max({:g} us, {} of the case's median time)",
                                     options.late_floor_us, format_percent(options.late_share))
                               : "";
  return fmt::format(
      "straggler: a rank whose median time is more than {} above the median of the other ranks' "
      "medians{}; times per operation in us",
      format_percent(options.threshold), late);
}

// "STRAGGLER" for a slow rank, with "(late)" or "(slow, late)" when its lateness flags it too.
std::string straggler_cell(const RankTimes& times) {
  if (!times.late) return times.slow ? "STRAGGLER" : "";
  return times.slow ? "STRAGGLER (slow, late)" : "STRAGGLER (late)";
}

std::string origin(const RanksAnalysis& analysis) {
  std::vector<report::ReportRow> rows;
  for (const CaseRanks& c : analysis.cases) rows.push_back(c.row);
  return describe_origin(rows);
}

}  // namespace

bool RanksAnalysis::has_lateness() const {
  return std::any_of(cases.begin(), cases.end(), [](const CaseRanks& c) { return c.has_lateness; });
}

std::size_t RanksAnalysis::straggler_count() const {
  std::size_t count = 0;
  for (const RankSummary& rank : ranks) count += rank.stragglers;
  return count;
}

RanksAnalysis analyze_ranks(const report::SampleFile& file, const RanksOptions& options) {
  RanksAnalysis analysis;
  for (const report::SampleCase& c : file.cases) {
    if (c.samples_us.empty()) {
      ++analysis.unmeasured_cases;
    } else if (c.row.ranks == 1) {
      ++analysis.single_rank_cases;  // nothing to compare it with
    } else {
      analysis.cases.push_back(analyze_case(c, options));
    }
  }
  if (analysis.cases.empty()) {
    throw report::ReportError(file.path, 0,
                              fmt::format("nothing to compare: no case has two or more ranks with "
                                          "samples ({})",
                                          skipped_cases(analysis)));
  }
  analysis.ranks = summarize_ranks(analysis.cases);
  return analysis;
}

Table ranks_case_table(const RanksAnalysis& analysis) {
  Table table;
  const bool lateness = analysis.has_lateness();
  table.columns = key_columns(true);
  table.columns.insert(table.columns.end(), {{"rank", Align::kRight},
                                             {"median (us)", Align::kRight},
                                             {"mean (us)", Align::kRight},
                                             {"vs others", Align::kRight}});
  if (lateness) table.columns.push_back({"lateness (us)", Align::kRight});
  table.columns.insert(table.columns.end(), {{"slowest"}, {"straggler"}});
  for (const CaseRanks& c : analysis.cases) {
    for (std::size_t rank = 0; rank < c.ranks.size(); ++rank) {
      const RankTimes& times = c.ranks[rank];
      std::vector<std::string> cells = key_cells(report::row_key(c.row), true);
      cells.insert(cells.end(), {std::to_string(rank), format_us(times.median_us),
                                 format_us(times.mean_us), format_change(times.excess)});
      if (lateness) cells.push_back(c.has_lateness ? format_us(times.mean_lateness_us) : "-");
      cells.insert(cells.end(), {c.slowest_rank == static_cast<int>(rank) ? "slowest" : "",
                                 straggler_cell(times)});
      table.add_row(std::move(cells));
    }
  }
  return table;
}

Table ranks_summary_table(const RanksAnalysis& analysis) {
  Table table;
  table.columns = {{"rank", Align::kRight},
                   {"cases", Align::kRight},
                   {"slowest in", Align::kRight},
                   {"straggler in", Align::kRight},
                   {"median vs others", Align::kRight}};
  const bool lateness = analysis.has_lateness();
  if (lateness) table.columns.push_back({"mean lateness (us)", Align::kRight});
  for (const RankSummary& rank : analysis.ranks) {
    std::vector<std::string> cells = {std::to_string(rank.rank), std::to_string(rank.cases),
                                      std::to_string(rank.slowest), std::to_string(rank.stragglers),
                                      format_change(rank.median_excess)};
    if (lateness) cells.push_back(format_us(rank.mean_lateness_us));
    table.add_row(std::move(cells));
  }
  return table;
}

std::string ranks_verdict_line(const RanksAnalysis& analysis, const RanksOptions& options) {
  if (analysis.straggler_count() == 0) {
    return fmt::format("collreport ranks: PASS: no straggler above {}; {}",
                       format_percent(options.threshold), skipped_cases(analysis));
  }
  std::string flagged;
  for (const RankSummary& rank : analysis.ranks) {
    if (rank.stragglers == 0) continue;
    flagged += fmt::format("{}rank {} in {} of {} cases", flagged.empty() ? "" : ", ", rank.rank,
                           rank.stragglers, rank.cases);
    if (rank.late > 0) flagged += fmt::format(" ({} late)", rank.late);
  }
  return fmt::format("collreport ranks: STRAGGLERS above {}: {}; {}",
                     format_percent(options.threshold), flagged, skipped_cases(analysis));
}

int run_ranks(const std::string& path, const RanksOptions& options, bool markdown,
              std::ostream& out, std::ostream& err) {
  const report::SampleFile file = report::read_sample_file(path);
  if (!file.warning.empty()) err << "collreport: warning: " << file.warning << "\n";
  const RanksAnalysis analysis = analyze_ranks(file, options);
  if (markdown) {
    out << fmt::format("### collreport ranks: {}\n\n{}\n\n{}\n\n", origin(analysis),
                       ranks_verdict_line(analysis, options), rule_line(analysis, options))
        << render_markdown(ranks_summary_table(analysis)) << "\n"
        << render_markdown(ranks_case_table(analysis));
  } else {
    out << ranks_verdict_line(analysis, options) << "\n"
        << origin(analysis) << "\n"
        << rule_line(analysis, options) << "\n\n"
        << render_text(ranks_case_table(analysis)) << "\n"
        << render_text(ranks_summary_table(analysis));
  }
  return analysis.exit_code();
}

}  // namespace collbench::collreport
