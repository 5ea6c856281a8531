// Text and Markdown output of `collreport beside`.
#include "nccl_tests/beside_output.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <set>

#include "nccl_tests/nccl_tests_rows.hpp"
#include "reports/key_values.hpp"
#include "text/format.hpp"
#include "text/report_info.hpp"

namespace collbench::collreport {
namespace {

struct Curve {
  std::string heading;
  std::vector<BesideRow> rows;  // by size
  bool matched = false;         // some row is on both sides
};

// "all_reduce, 8 ranks, float" and the variant: "..., in_place register=local".
std::string curve_heading(const report::RowKey& key) {
  std::string heading = fmt::format("{}, {} ranks, {}", key.op, key.ranks, key.dtype);
  const std::string variant = report::variant_label(key);
  return variant.empty() ? heading : heading + ", " + variant;
}

std::vector<Curve> curves_of(const Beside& beside) {
  std::map<report::RowKey, Curve> by_series;  // rows arrive in key order: by size within a curve
  for (const BesideRow& row : beside.rows) {
    Curve& curve =
        by_series[report::series_key(row.collbench ? row.collbench->row : row.nccl_tests->row)];
    curve.rows.push_back(row);
    curve.matched = curve.matched || row.verdict != BesideVerdict::kUnmatched;
  }
  std::vector<Curve> curves;
  for (auto& [series, curve] : by_series) {
    report::RowKey key = series;
    key.algo.clear();
    curve.heading = curve_heading(key);
    curves.push_back(std::move(curve));
  }
  return curves;
}

// The value of `key` in the extra column, or "".
std::string extra_value(const std::string& extra, const std::string& key) {
  return report::key_value(extra, key).value_or("");
}

// How nccl-tests ran, from the extra column: "nccl-tests 2.19.6 -t 8 -g 1, 1 process".
std::string nccl_tests_setup(const std::vector<report::ReportRow>& rows) {
  std::set<std::string> setups;
  for (const report::ReportRow& row : rows) {
    const std::string processes = extra_value(row.extra, "processes");
    setups.insert(
        fmt::format("nccl-tests {} -t {} -g {}, {} process{}", extra_value(row.extra, "nccl_tests"),
                    extra_value(row.extra, "threads"), extra_value(row.extra, "gpus_per_thread"),
                    processes, processes == "1" ? "" : "es"));
  }
  return fmt::format("{}", fmt::join(setups, " / "));
}

std::string origin_line(const char* label, const report::Report& report, const char* algo) {
  std::vector<report::ReportRow> rows;
  for (const report::ReportLine& line : report.rows) {
    if (line.row.algo == algo) rows.push_back(line.row);
  }
  std::string line = fmt::format("{} {} ({}, {} {} rows", label, report.path, describe_origin(rows),
                                 rows.size(), algo);
  if (std::string(algo) == kNcclTestsAlgo) line += "; " + nccl_tests_setup(rows);
  return line + ")";
}

std::string side_only_lines(const std::vector<Curve>& curves, const char* bullet) {
  std::string text;
  for (const Curve& curve : curves) {
    if (curve.matched) continue;
    const bool collbench = curve.rows.front().collbench.has_value();
    text += fmt::format("{}{} only: {} ({} rows)\n", bullet, collbench ? "collbench" : "nccl-tests",
                        curve.heading, curve.rows.size());
  }
  return text;
}

std::vector<std::string> row_cells(const BesideRow& r) {
  auto time = [](const std::optional<report::ReportLine>& side) {
    return side && side->row.status == report::kStatusOk ? format_us(side->row.time.mean_us)
                                                         : std::string("-");
  };
  auto busbw = [](const std::optional<report::ReportLine>& side) {
    return side && side->row.status == report::kStatusOk ? format_gbps(side->row.busbw_gbps)
                                                         : std::string("-");
  };
  const bool busbw_change = r.measured_both && r.nccl_tests->row.busbw_gbps > 0;
  return {format_bytes(r.key.bytes),
          time(r.collbench),
          time(r.nccl_tests),
          r.measured_both ? fmt::format("{:+.2f}", r.time_difference_us) : "-",
          r.measured_both ? format_change(r.time_change) : "-",
          busbw(r.collbench),
          busbw(r.nccl_tests),
          busbw_change ? format_change(r.busbw_change) : "-",
          r.busbw_judged && r.time_judged ? "busbw, time"
          : r.busbw_judged                ? "busbw"
          : r.time_judged                 ? "time"
                                          : "-",
          beside_verdict_name(r.verdict),
          r.note};
}

// Both outputs: the heading lines, then the table of each curve some row of which is on both
// sides, then the curves of one side only.
std::string beside_document(const Beside& beside, const report::Report& collbench,
                            const report::Report& nccl_tests, const BesideOptions& options,
                            bool markdown) {
  const std::string lead = markdown ? "- " : "";
  std::string text =
      fmt::format("{}collreport beside: {}\n{}{}{}\n{}{}\n{}{}{}\n", markdown ? "### " : "",
                  beside_verdict_line(beside), markdown ? "\n" : "", lead,
                  origin_line(markdown ? "collbench:" : "collbench: ", collbench, "nccl"), lead,
                  origin_line("nccl-tests:", nccl_tests, kNcclTestsAlgo), lead,
                  markdown ? "Rule: " : "", beside_rule_line(options));
  const std::vector<Curve> curves = curves_of(beside);
  for (const Curve& curve : curves) {
    if (!curve.matched) continue;
    const Table table = beside_table(curve.rows);
    text += markdown ? "\n#### " + curve.heading + "\n\n" + render_markdown(table)
                     : "\n" + curve.heading + "\n" + render_text(table);
  }
  const std::string side_only = side_only_lines(curves, lead.c_str());
  if (!side_only.empty()) {
    text += markdown ? "\n#### Curves on one side only\n\n" : "\nCurves on one side only:\n";
    text += side_only;
  }
  return text;
}

}  // namespace

std::string beside_verdict_line(const Beside& beside) {
  const std::size_t outside = beside.count(BesideVerdict::kOutside);
  return fmt::format(
      "{}: {} within, {} outside; {} not judged, {} not measured, {} unmatched ({} collbench "
      "only, {} nccl-tests only)",
      outside > 0 ? "FAIL" : "PASS", beside.count(BesideVerdict::kWithin), outside,
      beside.count(BesideVerdict::kNotJudged), beside.count(BesideVerdict::kNotMeasured),
      beside.count(BesideVerdict::kUnmatched), beside.only_in_collbench(),
      beside.only_in_nccl_tests());
}

std::string beside_rule_line(const BesideOptions& options) {
  return fmt::format(
      "busbw within ±{} from {}; mean time within ±{} us or ±{} below {}; sizes between are "
      "shown, not judged; differences are collbench - nccl-tests, relative to nccl-tests; busbw "
      "in GB/s",
      format_percent(options.busbw_tolerance), format_bytes(options.busbw_from_bytes),
      options.time_tolerance_us, format_percent(options.time_tolerance),
      format_bytes(options.time_below_bytes));
}

Table beside_table(const std::vector<BesideRow>& rows) {
  Table table;
  table.columns = {{"size", Align::kRight},
                   {"collbench (us)", Align::kRight},
                   {"nccl-tests (us)", Align::kRight},
                   {"Δ time (us)", Align::kRight},
                   {"Δ time", Align::kRight},
                   {"collbench busbw", Align::kRight},
                   {"nccl-tests busbw", Align::kRight},
                   {"Δ busbw", Align::kRight},
                   {"judged on"},
                   {"verdict"},
                   {"note"}};
  for (const BesideRow& row : rows) table.add_row(row_cells(row));
  return table;
}

std::string beside_text(const Beside& beside, const report::Report& collbench,
                        const report::Report& nccl_tests, const BesideOptions& options) {
  return beside_document(beside, collbench, nccl_tests, options, /*markdown=*/false);
}

std::string beside_markdown(const Beside& beside, const report::Report& collbench,
                            const report::Report& nccl_tests, const BesideOptions& options) {
  return beside_document(beside, collbench, nccl_tests, options, /*markdown=*/true);
}

}  // namespace collbench::collreport
