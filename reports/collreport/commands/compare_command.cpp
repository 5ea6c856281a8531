// `collreport compare BASE NEW`: NEW judged against BASE row by row; exit 1 on a regression.
#include <fmt/format.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "commands/command_io.hpp"
#include "commands/subcommands.hpp"
#include "compare/compare.hpp"
#include "compare/compare_output.hpp"
#include "reports/printable.hpp"
#include "rows/merge.hpp"
#include "text/format.hpp"

namespace collbench::collreport {
namespace {

struct CompareArguments {
  std::string baseline;   // BASE: the accepted report
  std::string candidate;  // NEW: the report to judge
  std::string min_effect = "3";
  std::string tolerance = "5";
  std::string latency_bytes = "1M";
  double latency_widening = 3.0;
  std::string markdown_path;
  bool all_rows = false;
  std::size_t max_rows = static_cast<std::size_t>(-1);
  std::optional<std::string> across;  // a config setting the two runs differ in ("nccl_proto")
};

CompareOptions compare_options(const CompareArguments& args) {
  CompareOptions options;
  options.min_effect = parse_percent(args.min_effect, "--min-effect");
  options.tolerance = parse_percent(args.tolerance, "--tolerance");
  options.latency_bound_bytes = parse_bytes(args.latency_bytes, "--latency-bytes");
  if (!(args.latency_widening >= 1.0)) {
    throw std::invalid_argument(
        fmt::format("--latency-widening '{}' must be at least 1", args.latency_widening));
  }
  options.latency_widening = args.latency_widening;
  return options;
}

int run_compare(const CompareArguments& args, std::ostream& out, std::ostream&) {
  const CompareOptions options = compare_options(args);
  report::Report base = report::read_report(args.baseline);
  report::Report fresh = report::read_report(args.candidate);
  if (args.across) {
    const std::string& setting = *args.across;
    if (setting.empty() || setting.find_first_of("=;") != std::string::npos) {
      throw std::invalid_argument(fmt::format(
          "--across '{}': not a setting name (as the config column writes it: nccl_proto)",
          report::printable(setting)));
    }
    if (!has_config_setting(base, setting) && !has_config_setting(fresh, setting)) {
      throw std::invalid_argument(
          fmt::format("--across {0}: no row of BASE or NEW has {0}=VALUE in its config",
                      report::printable(setting)));
    }
    base = without_config_setting(std::move(base), setting);
    fresh = without_config_setting(std::move(fresh), setting);
  }
  const Comparison comparison = compare_reports(base, fresh, options);
  out << comparison_text(comparison, base, fresh, options, {args.all_rows, args.max_rows});
  if (!args.markdown_path.empty()) {
    write_file(args.markdown_path, comparison_markdown(comparison, base, fresh, options));
  }
  return comparison.exit_code();
}

}  // namespace

Subcommand compare_command() {
  using Args = CompareArguments;
  return subcommand<Args>(
      "compare",
      "Compare NEW with BASE row by row; exit 1 on a regression or wrong elements in NEW",
      {positional(&Args::baseline, "base", "The accepted baseline report"),
       positional(&Args::candidate, "new", "The report to judge"),
       option(&Args::min_effect, "--min-effect",
              "Rows with intervals: the smallest change of the median time, in percent, that "
              "counts (bandwidth-bound sizes)",
              ShowDefault::kYes),
       option(&Args::tolerance, "--tolerance",
              "Rows without intervals: allowed busbw drop / p50 rise in percent "
              "(bandwidth-bound sizes)",
              ShowDefault::kYes),
       option(&Args::latency_bytes, "--latency-bytes",
              "Collective sizes below this are latency-bound (e.g. 1M)", ShowDefault::kYes),
       option(&Args::latency_widening, "--latency-widening",
              "Factor widening the minimum effect and the tolerance for latency-bound sizes",
              ShowDefault::kYes),
       option(&Args::markdown_path, "--markdown",
              "Also write a Markdown summary (regressions first) to this file"),
       flag(&Args::all_rows, "--all", "List rows of no change too"),
       option(&Args::across, "--across",
              "Pair rows that differ in this config setting (an A/B of it: --across nccl_proto "
              "compares a run under NCCL_PROTO=Simple with the default)"),
       option(&Args::max_rows, "--max-rows",
              "List at most this many rows (failures and the largest changes first)",
              ShowDefault::kNo, CLI::NonNegativeNumber)},
      "Rows are matched on op, algo, ranks, dtype, redop, root, in_place, bytes, graph, agg_iters\n"
      "and config (less --across); the passes of --repeat are pooled (median p50, the hull of "
      "their intervals).\n"
      "Where both rows have intervals, only the median time is judged: regressed when the\n"
      "intervals are disjoint and the change exceeds --min-effect, no change when it is within\n"
      "it, inconclusive (not failed) when the intervals are too wide to tell. Elsewhere (version "
      "1\n"
      "reports) a row regresses when its p50 time rises, or its busbw (from the mean) falls, by\n"
      "more than --tolerance. Below --latency-bytes both are --latency-widening times wider "
      "(busbw\n"
      "is not judged there, and needs BASE >= 1 GB/s). Wrong elements in NEW, or a failure in NEW\n"
      "where BASE was ok, fail too. Rows on one side only are listed, not failed.\n"
      "Exit: 0 pass, 1 regression or failure, 2 bad input. See reports/README.md.",
      run_compare);
}

}  // namespace collbench::collreport
