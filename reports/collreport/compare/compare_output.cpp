// Text and Markdown output of `collreport compare`.
#include "compare/compare_output.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "text/format.hpp"
#include "text/key_columns.hpp"
#include "text/report_info.hpp"

namespace collbench::collreport {
namespace {

std::vector<report::ReportRow> rows_of(const report::Report& report) {
  std::vector<report::ReportRow> rows;
  for (const report::ReportLine& line : report.rows) rows.push_back(line.row);
  return rows;
}

std::string origin_line(const char* label, const report::Report& report) {
  return fmt::format("{} {} ({}, {} rows)", label, report.path, describe_origin(rows_of(report)),
                     report.rows.size());
}

std::string count_phrase(std::size_t count, const char* singular, const char* plural) {
  return fmt::format("{} {}", count, count == 1 ? singular : plural);
}

std::vector<std::string> comparison_cells(const RowComparison& c) {
  const report::ReportRow* base = c.base ? &c.base->row : nullptr;
  const report::ReportRow* fresh = c.fresh ? &c.fresh->row : nullptr;
  auto measured = [](const report::ReportRow* row) {
    return row && row->status == report::kStatusOk;
  };
  auto gbps = [&](const report::ReportRow* row) {
    return measured(row) ? format_gbps(row->busbw_gbps) : std::string("-");
  };
  auto p50 = [&](const report::ReportRow* row) {
    return measured(row) ? format_us(row->time.p50_us) : std::string("-");
  };
  std::vector<std::string> cells = {verdict_name(c.verdict)};
  add_key_cells(cells, c.key, KeyColumns::kCase);
  cells.insert(
      cells.end(),
      {gbps(base), gbps(fresh), c.busbw_judged ? format_change(c.busbw_change) : "-", p50(base),
       p50(fresh), c.measured_both && base->time.p50_us > 0 ? format_change(c.p50_change) : "-",
       c.rule == Rule::kIntervals ? format_change_range(c.p50_change_lo, c.p50_change_hi) : "-",
       c.measured_both ? format_percent(c.allowed) : "-", c.note});
  return cells;
}

bool needs_attention(const RowComparison& c) {
  return c.verdict == Verdict::kFailed || c.verdict == Verdict::kNoTime ||
         c.verdict == Verdict::kRegression;
}

// How far a measured row moved: for a regression the larger of the judged busbw loss and the p50
// rise, for an improvement the larger gain (a large one may mean the measurement changed); for an
// inconclusive row the largest change its range leaves possible.
double severity(const RowComparison& c) {
  if (!c.measured_both) return 0;
  if (c.verdict == Verdict::kInconclusive) return std::max(c.p50_change_hi, -c.p50_change_lo);
  const double busbw_change = c.busbw_judged ? c.busbw_change : 0.0;
  return c.verdict == Verdict::kImproved ? std::max(busbw_change, -c.p50_change)
                                         : std::max(-busbw_change, c.p50_change);
}

// "95%", or "90%/95%" when the rows judged by intervals were measured at several levels.
std::string confidence_levels(const Comparison& comparison) {
  std::set<double> levels;
  for (const RowComparison& c : comparison.rows) {
    if (c.rule != Rule::kIntervals) continue;
    levels.insert(c.base->row.time.confidence_pct);
    levels.insert(c.fresh->row.time.confidence_pct);
  }
  std::vector<std::string> names;
  for (const double level : levels) names.push_back(format_percent(level / 100));
  return fmt::format("{}", fmt::join(names, "/"));
}

// Rows by verdict (failures first) and, within one verdict, the largest change first; stable, so
// rows without a change keep their key order.
std::vector<RowComparison> worst_first(std::vector<RowComparison> rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const RowComparison& a, const RowComparison& b) {
    if (a.verdict != b.verdict) return a.verdict < b.verdict;
    return severity(a) > severity(b);
  });
  return rows;
}

}  // namespace

std::string verdict_line(const Comparison& comparison) {
  const std::size_t failed = comparison.count(Verdict::kFailed);
  const std::size_t regressed = comparison.count(Verdict::kRegression);
  const std::size_t no_time = comparison.count(Verdict::kNoTime);
  return fmt::format(
      "{}: {}, {}{}; {} inconclusive, {} no change, {} improved, {} not compared, {} only in BASE, "
      "{} only in NEW; judged by intervals {}, by fixed tolerance {}",
      comparison.failed() ? "FAIL" : "PASS", count_phrase(regressed, "regression", "regressions"),
      count_phrase(failed, "failed row", "failed rows"),
      no_time == 0 ? "" : ", " + count_phrase(no_time, "row without a time", "rows without a time"),
      comparison.count(Verdict::kInconclusive), comparison.count(Verdict::kNoChange),
      comparison.count(Verdict::kImproved), comparison.count(Verdict::kNotCompared),
      comparison.count(Verdict::kOnlyInBase), comparison.count(Verdict::kOnlyInNew),
      comparison.count(Rule::kIntervals), comparison.count(Rule::kTolerance));
}

std::vector<std::string> rule_lines(const Comparison& comparison, const CompareOptions& options) {
  std::vector<std::string> lines;
  if (comparison.count(Rule::kIntervals) > 0) {
    lines.push_back(fmt::format(
        "intervals: median time only, {} intervals, minimum effect {} ({} below {}, where sizes "
        "are latency-bound; dp_step rows {})",
        confidence_levels(comparison), format_percent(options.min_effect),
        format_percent(options.min_effect * options.latency_widening),
        format_bytes(options.latency_bound_bytes), format_percent(options.min_effect)));
  }
  // Without any judged row the tolerance line stays, saying what would have applied.
  if (comparison.count(Rule::kTolerance) > 0 || lines.empty()) {
    lines.push_back(fmt::format(
        "tolerance: {} ({} below {}, where sizes are latency-bound and only p50 time is judged; "
        "dp_step rows {})",
        format_percent(options.tolerance),
        format_percent(options.tolerance * options.latency_widening),
        format_bytes(options.latency_bound_bytes), format_percent(options.tolerance)));
  }
  lines.back() += "; busbw in GB/s";
  return lines;
}

Table comparison_table(const std::vector<RowComparison>& rows) {
  Table table;
  table.columns = {{"verdict"}};
  add_key_columns(table.columns, KeyColumns::kCase);
  table.columns.insert(table.columns.end(), {{"busbw BASE", Align::kRight},
                                             {"busbw NEW", Align::kRight},
                                             {"change", Align::kRight},
                                             {"p50 BASE (us)", Align::kRight},
                                             {"p50 NEW (us)", Align::kRight},
                                             {"change", Align::kRight},
                                             {"range", Align::kRight},
                                             {"allowed", Align::kRight},
                                             {"note"}});
  for (const RowComparison& c : rows) table.add_row(comparison_cells(c));
  return table;
}

std::string comparison_text(const Comparison& comparison, const report::Report& base,
                            const report::Report& fresh, const CompareOptions& options,
                            const TextRows& text_rows) {
  std::vector<RowComparison> listed;
  for (const RowComparison& c : comparison.rows) {
    if (text_rows.all || c.verdict != Verdict::kNoChange) listed.push_back(c);
  }
  listed = worst_first(std::move(listed));
  const std::size_t hidden =
      listed.size() > text_rows.max_rows ? listed.size() - text_rows.max_rows : 0;
  listed.resize(listed.size() - hidden);
  std::string text = fmt::format("collreport compare: {}\n{}\n{}\n", verdict_line(comparison),
                                 origin_line("BASE", base), origin_line("NEW ", fresh));
  for (const std::string& line : rule_lines(comparison, options)) text += line + "\n";
  if (!listed.empty()) text += "\n" + render_text(comparison_table(listed));
  if (hidden > 0) {
    text += fmt::format("... and {} more {} (not listed: --max-rows)\n", hidden,
                        hidden == 1 ? "row" : "rows");
  }
  return text;
}

std::string comparison_markdown(const Comparison& comparison, const report::Report& base,
                                const report::Report& fresh, const CompareOptions& options) {
  std::vector<RowComparison> attention, inconclusive, others;
  for (const RowComparison& c : comparison.rows) {
    if (needs_attention(c)) {
      attention.push_back(c);
    } else {
      (c.verdict == Verdict::kInconclusive ? inconclusive : others).push_back(c);
    }
  }
  std::string text =
      fmt::format("### collreport compare: {}\n\n- {}\n- {}\n", verdict_line(comparison),
                  origin_line("BASE:", base), origin_line("NEW:", fresh));
  for (const std::string& line : rule_lines(comparison, options)) text += "- Rule: " + line + "\n";
  text += "\n";
  if (!attention.empty()) text += render_markdown(comparison_table(attention)) + "\n";
  if (!inconclusive.empty()) {
    text += fmt::format(
        "<details><summary>{} inconclusive rows (not failed: their intervals are too wide to "
        "judge)</summary>\n\n{}\n</details>\n",
        inconclusive.size(), render_markdown(comparison_table(worst_first(inconclusive))));
  }
  if (!others.empty()) {
    text += fmt::format("<details><summary>{} other rows</summary>\n\n{}\n</details>\n",
                        others.size(), render_markdown(comparison_table(others)));
  }
  return text;
}

}  // namespace collbench::collreport
