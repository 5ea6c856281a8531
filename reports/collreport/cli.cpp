// Command-line parsing and dispatch for collreport; every bad input ends as one line and exit 2.
#include "cli.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "beside.hpp"
#include "beside_output.hpp"
#include "build_info.hpp"
#include "compare.hpp"
#include "compare_output.hpp"
#include "csv_reader.hpp"
#include "format.hpp"
#include "merge.hpp"
#include "nccl_tests_output.hpp"
#include "nccl_tests_rows.hpp"
#include "pass_spread.hpp"
#include "printable.hpp"
#include "ranks_output.hpp"
#include "report_info.hpp"
#include "sample_file.hpp"
#include "summary.hpp"

namespace collbench::collreport {
namespace {

struct Arguments {
  std::vector<std::string> files;
  bool markdown = false;
  std::string base, fresh;
  std::string min_effect = "3";
  std::string tolerance = "5";
  std::string latency_bytes = "1M";
  double latency_widening = 3.0;
  std::string markdown_path;
  bool all_rows = false;
  std::size_t max_rows = static_cast<std::size_t>(-1);
  std::string output_path;
  std::string sample_path;
  std::string min_share = "0.25";
  std::string config;
  std::string bw_tolerance = "3";
  std::string bw_from = "64M";
  double time_tolerance_us = 0.5;
  std::string time_tolerance_pct = "5";
  std::string time_below = "64K";
};

constexpr std::size_t kMaxOptionMessageChars = 300;
// Cases listed in the summary's table of between-pass spreads (the widest).
constexpr std::size_t kListedPassSpreads = 10;
constexpr std::size_t kMaxMessageChars = 2000;

// `text` on one line: line breaks become "; ", other control characters \xNN; cut at max_chars.
std::string one_line(const std::string& text, std::size_t max_chars) {
  std::string line;
  for (const char c : text) {
    const unsigned char byte = static_cast<unsigned char>(c);
    if (c == '\n') {
      if (!line.empty()) line += "; ";
    } else if (byte < 0x20 || byte == 0x7f) {
      line += fmt::format("\\x{:02x}", byte);
    } else {
      line += c;
    }
    if (line.size() > max_chars) return line.substr(0, max_chars) + "...";
  }
  while (!line.empty() && (line.back() == ' ' || line.back() == ';')) line.pop_back();
  return line;
}

// CSV reports or sample files; a sample file's cut-off last line is a warning on `err`.
report::Report read_all(const std::vector<std::string>& paths, std::ostream& err) {
  std::vector<report::Report> reports;
  std::vector<std::string> warnings;
  for (const std::string& path : paths) reports.push_back(report::read_report_rows(path, warnings));
  for (const std::string& warning : warnings) err << "collreport: warning: " << warning << "\n";
  return reports.size() == 1 ? reports.front() : merge_reports(reports, "merged reports");
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << text;
  file.flush();
  if (!file) throw std::runtime_error(fmt::format("cannot write '{}'", path));
}

// The summary's second table, for reports measured in several passes: the widest spreads.
std::string pass_spread_section(const report::Report& report, bool markdown) {
  const std::vector<CaseSpread> spreads = pass_spreads(report);
  if (spreads.empty()) return "";
  const std::size_t listed = std::min(spreads.size(), kListedPassSpreads);
  const Table table = pass_spread_table(spreads, listed);
  const std::string heading = pass_spread_heading(spreads, listed);
  return markdown ? "\n" + heading + "\n\n" + render_markdown(table)
                  : "\n" + heading + "\n" + render_text(table);
}

int run_summary(const Arguments& args, std::ostream& out, std::ostream& err) {
  const report::Report report = read_all(args.files, err);
  std::vector<report::ReportRow> rows;
  for (const report::ReportLine& line : report.rows) rows.push_back(line.row);
  const Table table = summary_table(summarize(rows));
  const bool intervals = std::any_of(
      rows.begin(), rows.end(), [](const report::ReportRow& row) { return row.has_interval(); });
  const std::string interval_note =
      intervals ? "; ± = half the median's confidence interval, in percent of p50" : "";
  if (args.markdown) {
    out << fmt::format(
               "### collreport summary: {}\n\nbusbw in GB/s; sizes where 50% and 90% of the "
               "peak are first reached; latency floor = p50 time at the smallest size{}\n\n",
               describe_origin(rows), interval_note)
        << render_markdown(table);
  } else {
    out << describe_origin(rows) << interval_note << "\n" << render_text(table);
  }
  out << pass_spread_section(report, args.markdown);
  return kExitOk;
}

CompareOptions compare_options(const Arguments& args) {
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

int run_compare(const Arguments& args, std::ostream& out) {
  const CompareOptions options = compare_options(args);
  const report::Report base = report::read_report(args.base);
  const report::Report fresh = report::read_report(args.fresh);
  const Comparison comparison = compare_reports(base, fresh, options);
  out << comparison_text(comparison, base, fresh, options, {args.all_rows, args.max_rows});
  if (!args.markdown_path.empty()) {
    write_file(args.markdown_path, comparison_markdown(comparison, base, fresh, options));
  }
  return comparison.exit_code();
}

int run_merge(const Arguments& args, std::ostream& out) {
  std::vector<report::Report> reports;
  for (const std::string& path : args.files) reports.push_back(report::read_report(path));
  const std::string csv = report_csv(merge_reports(reports, "merged reports"));
  if (args.output_path.empty()) {
    out << csv;
  } else {
    write_file(args.output_path, csv);
  }
  return kExitOk;
}

// nccl-tests output files to one CSV report (algo nccl-tests).
int run_nccl_tests(const Arguments& args, std::ostream& out, std::ostream& err) {
  check_config_text(args.config, "--config");
  NcclTestsConverter converter(args.config);
  std::size_t runs = 0;
  for (const std::string& path : args.files) {
    const report::NcclTestsOutput output = report::read_nccl_tests_output(path);
    converter.add(output, file_modified_utc(path));
    runs += output.runs.size();
  }
  for (const std::string& warning : converter.warnings()) {
    err << "collreport: warning: " << warning << "\n";
  }
  const std::string csv = report_csv(converter.report());
  if (args.output_path.empty()) {
    out << csv;
  } else {
    write_file(args.output_path, csv);
    out << fmt::format("collreport nccl-tests: {} rows from {} run(s) in {} file(s) to {}\n",
                       converter.report().rows.size(), runs, args.files.size(), args.output_path);
  }
  return kExitOk;
}

BesideOptions beside_options(const Arguments& args) {
  BesideOptions options;
  options.busbw_tolerance = parse_percent(args.bw_tolerance, "--bw-tolerance");
  options.busbw_from_bytes = parse_bytes(args.bw_from, "--bw-from");
  if (!(args.time_tolerance_us >= 0) || !std::isfinite(args.time_tolerance_us)) {
    throw std::invalid_argument(fmt::format(
        "--time-tolerance-us '{}' is not a time of 0 us or more", args.time_tolerance_us));
  }
  options.time_tolerance_us = args.time_tolerance_us;
  options.time_tolerance = parse_percent(args.time_tolerance_pct, "--time-tolerance-pct");
  options.time_below_bytes = parse_bytes(args.time_below, "--time-below");
  return options;
}

int run_beside(const Arguments& args, std::ostream& out) {
  const BesideOptions options = beside_options(args);
  const report::Report collbench = report::read_report(args.base);
  const report::Report nccl_tests = report::read_report(args.fresh);
  const Beside beside = beside_reports(collbench, nccl_tests, options);
  out << beside_text(beside, collbench, nccl_tests, options);
  if (!args.markdown_path.empty()) {
    write_file(args.markdown_path, beside_markdown(beside, collbench, nccl_tests, options));
  }
  return beside.exit_code();
}

}  // namespace

int run_collreport(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{
      "collreport: summarize, compare and merge collbench CSV reports; per-rank times of "
      "collbench --json sample files; nccl-tests output beside collbench's",
      "collreport"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("collreport ") + kCollbenchVersion);
  app.footer(
      "Exit status: 0 pass; 1 a regression, wrong elements or a failed row (compare), a late rank\n"
      "(ranks), a row outside its tolerance (beside); 2 bad input (one line naming the file, line\n"
      "and value), or a compare, ranks or beside that judged nothing.");
  Arguments args;

  CLI::App* summary = app.add_subcommand(
      "summary",
      "Per curve (op, algo, ranks, dtype, variant): peak busbw and where it is reached, "
      "sizes reaching 50%/90% of it, latency floor, the widest interval, wrong elements, "
      "skipped/failed rows; with passes of --repeat, the widest spreads between them");
  summary->add_option("files", args.files, "CSV reports (several are merged first)")->required();
  summary->add_flag("--markdown", args.markdown, "Print a Markdown table instead of text");
  summary->footer(
      "A file may also be a collbench --json sample file (its first non-blank character is '{'):\n"
      "its cases' rows are summarized as a CSV's.");

  CLI::App* compare = app.add_subcommand(
      "compare",
      "Compare NEW with BASE row by row; exit 1 on a regression or wrong elements in NEW");
  compare->add_option("base", args.base, "The accepted baseline report")->required();
  compare->add_option("new", args.fresh, "The report to judge")->required();
  compare
      ->add_option("--min-effect", args.min_effect,
                   "Rows with intervals: the smallest change of the median time, in percent, that "
                   "counts (bandwidth-bound sizes)")
      ->capture_default_str();
  compare
      ->add_option("--tolerance", args.tolerance,
                   "Rows without intervals: allowed busbw drop / p50 rise in percent "
                   "(bandwidth-bound sizes)")
      ->capture_default_str();
  compare
      ->add_option("--latency-bytes", args.latency_bytes,
                   "Collective sizes below this are latency-bound (e.g. 1M)")
      ->capture_default_str();
  compare
      ->add_option("--latency-widening", args.latency_widening,
                   "Factor widening the minimum effect and the tolerance for latency-bound sizes")
      ->capture_default_str();
  compare->add_option("--markdown", args.markdown_path,
                      "Also write a Markdown summary (regressions first) to this file");
  compare->add_flag("--all", args.all_rows, "List rows of no change too");
  compare
      ->add_option("--max-rows", args.max_rows,
                   "List at most this many rows (failures and the largest changes first)")
      ->check(CLI::NonNegativeNumber);
  compare->footer(
      "Rows are matched on op, algo, ranks, dtype, redop, root, in_place, bytes, graph, agg_iters\n"
      "and config; the passes of --repeat are pooled (median p50, the hull of their intervals).\n"
      "Where both rows have intervals, only the median time is judged: regressed when the\n"
      "intervals are disjoint and the change exceeds --min-effect, no change when it is within\n"
      "it, inconclusive (not failed) when the intervals are too wide to tell. Elsewhere (version "
      "1\n"
      "reports) a row regresses when its p50 time rises, or its busbw (from the mean) falls, by\n"
      "more than --tolerance. Below --latency-bytes both are --latency-widening times wider "
      "(busbw\n"
      "is not judged there, and needs BASE >= 1 GB/s). Wrong elements in NEW, or a failure in NEW\n"
      "where BASE was ok, fail too. Rows on one side only are listed, not failed.\n"
      "Exit: 0 pass, 1 regression or failure, 2 bad input. See reports/README.md.");

  CLI::App* merge = app.add_subcommand("merge", "Concatenate reports of the same schema into one");
  merge->add_option("files", args.files, "CSV reports")->required();
  merge->add_option("-o,--output", args.output_path, "Write here instead of standard output");

  CLI::App* ranks = app.add_subcommand(
      "ranks",
      "Per case of a sample file: which rank came late (GPU and host lateness against the other "
      "ranks') and which waited; exit 1 when a rank is late in enough cases");
  ranks->add_option("file", args.sample_path, "A sample file written by collbench --json")
      ->required();
  ranks
      ->add_option("--min-share", args.min_share,
                   "Name a rank late in at least this share of the judged cases (and at least 2): "
                   "a fault lasts, a one-off is noise")
      ->capture_default_str();
  ranks->add_flag("--markdown", args.markdown, "Print Markdown tables instead of text");
  ranks->footer(
      "A rank is late in a case when its GPU lateness (a sample's longest time minus its own) or\n"
      "its host lateness (its launch after its host's earliest) is above max(20 us, 5% of the op\n"
      "time, the other ranks' median + 5 x their spread). Only ops whose ranks end together are\n"
      "judged (all_reduce, all_gather, reduce_scatter, alltoall, alltoallv); cases with one rank\n"
      "or without samples are skipped. Exit: 0 no rank named, 1 a rank late in enough cases, 2\n"
      "bad input or nothing judged. See reports/README.md.");

  CLI::App* nccl_tests = app.add_subcommand(
      "nccl-tests",
      "Convert nccl-tests output (stdout of all_reduce_perf etc., 2.19) into a CSV report of algo "
      "nccl-tests, to set beside collbench's with `beside`");
  nccl_tests->add_option("files", args.files, "Files of nccl-tests standard output")->required();
  nccl_tests->add_option("--csv", args.output_path,
                         "Write the report here instead of standard output");
  nccl_tests->add_option(
      "--config", args.config,
      "The config column of every row, as collbench writes it for the same settings (e.g. "
      "register=local for -R 1, split=MOD 2;groups=2 for NCCL_TESTS_SPLIT)");
  nccl_tests->footer(
      "Two rows per data line (out of place, in place): time_us_mean = nccl-tests' time (its\n"
      "mean), algbw and busbw as printed, wrong elements where checked; no interval (samples\n"
      "0). ranks = the Rank lines, host and GPU from them, NCCL from the version line. A case\n"
      "measured again (-N) gets repeat 1, 2, ... Lines of fp8 types or mulsum are left out with\n"
      "a warning. Exit: 0 written, 2 bad input (one line naming the file, line and text). See\n"
      "reports/README.md.");

  CLI::App* beside = app.add_subcommand(
      "beside",
      "collbench's NCCL rows beside nccl-tests' (from `nccl-tests`), size by size; exit 1 when "
      "a judged row differs by more than its tolerance");
  beside->add_option("collbench", args.base, "A collbench report (rows of algo nccl)")->required();
  beside->add_option("nccl-tests", args.fresh, "A report written by collreport nccl-tests")
      ->required();
  beside
      ->add_option("--bw-tolerance", args.bw_tolerance,
                   "Allowed busbw difference in percent, at sizes of at least --bw-from")
      ->capture_default_str();
  beside->add_option("--bw-from", args.bw_from, "Smallest size whose busbw is judged")
      ->capture_default_str();
  beside
      ->add_option("--time-tolerance-us", args.time_tolerance_us,
                   "Allowed mean time difference in microseconds, below --time-below")
      ->capture_default_str();
  beside
      ->add_option("--time-tolerance-pct", args.time_tolerance_pct,
                   "... or in percent (either suffices)")
      ->capture_default_str();
  beside->add_option("--time-below", args.time_below, "Sizes below this have their time judged")
      ->capture_default_str();
  beside->add_option("--markdown", args.markdown_path,
                     "Also write the tables as Markdown to this file");
  beside->footer(
      "Rows match on op, ranks, dtype, redop, root, in_place, bytes, graph, agg_iters, config\n"
      "and repeat (not algo). Mean against mean: collbench's time_us_mean and busbw_gbps against\n"
      "nccl-tests' time and busbw. Differences are collbench - nccl-tests, relative to\n"
      "nccl-tests; bounds are inclusive. Sizes between --time-below and --bw-from are shown, not\n"
      "judged. Exit: 0 every judged row within, 1 a row outside, 2 bad input or nothing judged.\n"
      "See reports/README.md.");

  try {
    app.parse(argc, argv);
    if (nccl_tests->parsed()) return run_nccl_tests(args, out, err);
    if (beside->parsed()) return run_beside(args, out);
    if (summary->parsed()) return run_summary(args, out, err);
    if (ranks->parsed()) {
      RanksOptions options;
      options.min_share = parse_share(args.min_share, "--min-share");
      return run_ranks(args.sample_path, options, args.markdown, out, err);
    }
    if (compare->parsed()) return run_compare(args, out);
    return run_merge(args, out);
  } catch (const CLI::CallForHelp&) {
    out << report::wrap_help(app.help());  // the selected subcommand's, when one was
    return kExitOk;
  } catch (const CLI::CallForAllHelp&) {
    out << report::wrap_help(app.help("", CLI::AppFormatMode::All));
    return kExitOk;
  } catch (const CLI::CallForVersion&) {
    out << app.version() << "\n";
    return kExitOk;
  } catch (const CLI::ParseError& error) {
    // CLI11 quotes the arguments it rejects, whatever they hold: escape and shorten them.
    err << "collreport: error: " << one_line(error.what(), kMaxOptionMessageChars)
        << " (collreport --help lists the options)\n";
    return kExitBadInput;
  } catch (const std::exception& error) {
    // Report errors quote values escaped already; the guard keeps any other message on one line.
    err << "collreport: error: " << one_line(error.what(), kMaxMessageChars) << "\n";
    return kExitBadInput;
  }
}

}  // namespace collbench::collreport
