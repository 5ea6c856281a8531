// The console table and CSV sinks.
#include "output/case_sinks.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "core/config_column.hpp"
#include "reports/report_row.hpp"

namespace collbench {

report::ReportRow make_report_row(const RunMetadata& metadata, const MeasureSettings& settings,
                                  const Case& c, const CaseOutcome& outcome,
                                  const CaseMetrics& metrics) {
  report::ReportRow row = row_with_metadata(metadata);
  row.op = std::string(c.spec->name);
  row.algo = c.algo();
  row.ranks = c.ranks;
  row.dtype = std::string(name_of(c.type));
  row.redop = std::string(name_of(c.op));
  row.root = c.root;
  row.in_place = c.in_place;
  row.bytes = c.bytes();
  row.count = c.counts.param;
  row.warmup = settings.warmup_iters;
  row.iters = settings.iters;
  row.agg_iters = settings.agg_iters;
  row.graph = settings.graph_replays;
  row.repeat = c.repeat;
  // Loop timing measures differently: a curve of its own (graph replays are timed alike either
  // way).
  row.config = c.config();
  if (times_whole_loop(settings)) append_config(row.config, "timing=loop");
  row.stop = outcome.stop.empty() ? report::kStopFixed : outcome.stop;
  row.time = metrics.time;
  row.algbw_gbps = metrics.algbw_gbps;
  row.busbw_gbps = metrics.busbw_gbps;
  row.busbw_gbps_lo = metrics.busbw_lo_gbps;
  row.busbw_gbps_hi = metrics.busbw_hi_gbps;
  row.peak_fraction = metrics.peak_fraction;
  row.wrong_elements = outcome.wrong_elements;
  row.status = outcome.status;
  row.reason = outcome.reason;
  // --split: the aggregate and each group's busbw (Case::groups() order) in the extra column.
  if (!metrics.groups.empty()) {
    std::vector<std::string> group_busbw;
    for (const GroupMetrics& group : metrics.groups)
      group_busbw.push_back(fmt::format("{:.3f}", group.busbw_gbps));
    row.extra = fmt::format("aggregate_busbw_gbps={:.3f};group_busbw_gbps={}",
                            metrics.aggregate_busbw_gbps, fmt::join(group_busbw, "/"));
  }
  return row;
}

ReportRowSink::ReportRowSink(std::vector<std::unique_ptr<RowSink>> sinks,
                             const RunMetadata& metadata, const MeasureSettings& settings)
    : sinks_(std::move(sinks)), metadata_(metadata), settings_(settings) {}

void ReportRowSink::on_case(const Case& c, const CaseOutcome& outcome, const CaseMetrics& metrics) {
  const report::ReportRow row = make_report_row(metadata_, settings_, c, outcome, metrics);
  for (const auto& sink : sinks_) sink->write(row);
}

void TraceSink::on_case(const Case& c, const CaseOutcome& outcome, const CaseMetrics& metrics) {
  if (outcome.status != report::kStatusOk) return;
  const std::map<std::string, std::string> args = {
      {"bytes", std::to_string(c.bytes())},
      {"busbw_gbps", fmt::format("{:.2f}", metrics.busbw_gbps)},
      {"p50_us", fmt::format("{:.2f}", metrics.time.p50_us)},
      {"wrong_elements", std::to_string(outcome.wrong_elements)}};
  for (std::size_t local = 0; local < outcome.rank_start_us.size(); ++local) {
    writer_.add_case(display_name(c), outcome.local_ranks[local], outcome.local_devices[local],
                     outcome.rank_start_us[local], outcome.rank_duration_us[local], args);
  }
}

void PassSpreadSummary::on_case(const Case& c, const CaseOutcome& outcome,
                                const CaseMetrics& metrics) {
  if (outcome.status != report::kStatusOk || metrics.time.p50_us <= 0) return;
  Case first_pass = c;
  first_pass.repeat = 0;
  Passes& passes = by_case_[benchmark_name(first_pass)];
  if (passes.name.empty()) passes.name = display_name(first_pass);
  passes.p50_us.push_back(metrics.time.p50_us);
}

void PassSpreadSummary::print(std::FILE* out, std::size_t listed) const {
  std::vector<std::pair<double, const std::string*>> spreads;
  for (const auto& [key, passes] : by_case_) {
    if (passes.p50_us.size() < 2) continue;
    const auto [fastest, slowest] = std::minmax_element(passes.p50_us.begin(), passes.p50_us.end());
    spreads.emplace_back(*slowest / *fastest - 1, &passes.name);
  }
  if (spreads.empty()) return;
  std::sort(spreads.begin(), spreads.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  const double median = spreads[spreads.size() / 2].first;
  fmt::print(out,
             "#\n# between passes: {} cases; p50 spread (slowest pass / fastest - 1): median "
             "{:.1f}%, widest:\n",
             spreads.size(), 100 * median);
  for (std::size_t i = 0; i < spreads.size() && i < listed; ++i) {
    fmt::print(out, "#   {:6.1f}%  {}\n", 100 * spreads[i].first, *spreads[i].second);
  }
  std::fflush(out);
}

std::string describe_group_metrics(const Case& c, const CaseMetrics& metrics) {
  const std::vector<std::vector<int>> groups = c.groups();
  std::string text = "groups:";
  for (std::size_t g = 0; g < metrics.groups.size() && g < groups.size(); ++g) {
    text +=
        fmt::format(" {}[{}] {:.2f} us {:.2f} GB/s", g == 0 ? "" : "| ", fmt::join(groups[g], ","),
                    metrics.groups[g].time_us_mean, metrics.groups[g].busbw_gbps);
  }
  return text + fmt::format(" | aggregate busbw {:.2f} GB/s", metrics.aggregate_busbw_gbps);
}

std::string ConsoleTable::column_header() {
  return fmt::format(
      "#{:>13} {:>12} {:>8} {:>5} {:>4} {:>5} {:>10} {:>10} {:>6} {:>10} {:>9} {:>9} {:>7}  {}\n"
      "#{:>13} {:>12} {:>8} {:>5} {:>4} {:>5} {:>10} {:>10} {:>6} {:>10} {:>9} {:>9} {:>7}  {}",
      "size", "count", "type", "redop", "root", "place", "time", "p50", "+-", "p99", "algbw",
      "busbw", "#wrong", "status", "(B)", "(elements)", "", "", "", "", "(us)", "(us)", "(%)",
      "(us)", "(GB/s)", "(GB/s)", "", "");
}

std::string ConsoleTable::format_line(const Case& c, const CaseOutcome& outcome,
                                      const CaseMetrics& metrics) {
  const std::string root = c.root >= 0 ? std::to_string(c.root) : "-";
  const bool measured = !outcome.iteration_us.empty();
  auto number = [&](double value, int decimals) {
    return measured ? fmt::format("{:.{}f}", value, decimals) : std::string("-");
  };
  // The median's interval as +- half its width, in percent of the median.
  const std::string noise =
      measured && metrics.time.has_interval() && metrics.time.p50_us > 0
          ? fmt::format("{:.1f}", (metrics.time.p50_hi_us - metrics.time.p50_lo_us) / 2 /
                                      metrics.time.p50_us * 100)
          : std::string("-");
  std::string status = outcome.status;
  if (outcome.stop == report::kStopTimeLimit) status += " (max-time)";
  std::string line = fmt::format(
      " {:>13} {:>12} {:>8} {:>5} {:>4} {:>5} {:>10} {:>10} {:>6} {:>10} {:>9} {:>9} {:>7}  {}",
      c.bytes(), c.counts.param, name_of(c.type), name_of(c.op), root, c.in_place ? "in" : "out",
      number(metrics.time.mean_us, 2), number(metrics.time.p50_us, 2), noise,
      number(metrics.time.p99_us, 2), number(metrics.algbw_gbps, 2), number(metrics.busbw_gbps, 2),
      measured || outcome.wrong_elements ? std::to_string(outcome.wrong_elements) : "-", status);
  if (!outcome.reason.empty()) line += fmt::format("\n#   {}: {}", outcome.status, outcome.reason);
  if (!metrics.groups.empty()) line += "\n#   " + describe_group_metrics(c, metrics);
  return line;
}

void ConsoleTable::on_case(const Case& c, const CaseOutcome& outcome, const CaseMetrics& metrics) {
  std::string group = fmt::format("{} | {} | {} ranks", c.spec->name, c.algo(), c.ranks);
  // Rows of one implementation with other settings or registration are a curve of their own.
  if (const std::string config = c.config(); !config.empty()) group += " | " + config;
  if (c.repeat > 0) group += fmt::format(" | pass {}", c.repeat + 1);
  if (group != group_) {
    fmt::print(out_, "#\n# {}\n{}\n", group, column_header());
    group_ = group;
  }
  fmt::print(out_, "{}\n", format_line(c, outcome, metrics));
  std::fflush(out_);
}

}  // namespace collbench
