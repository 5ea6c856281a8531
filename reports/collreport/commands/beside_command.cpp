// `collreport beside COLLBENCH NCCL_TESTS`: collbench's NCCL rows beside nccl-tests', size by size.
#include <fmt/format.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "commands/command_io.hpp"
#include "commands/subcommands.hpp"
#include "nccl_tests/beside.hpp"
#include "nccl_tests/beside_output.hpp"
#include "text/format.hpp"

namespace collbench::collreport {
namespace {

struct BesideArguments {
  std::string collbench_path;   // a collbench report, rows of algo nccl
  std::string nccl_tests_path;  // written by `collreport nccl-tests`
  std::string bw_tolerance = "3";
  std::string bw_from = "64M";
  double time_tolerance_us = 0.5;
  std::string time_tolerance_pct = "5";
  std::string time_below = "64K";
  std::string markdown_path;
};

BesideOptions beside_options(const BesideArguments& args) {
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

int run_beside(const BesideArguments& args, std::ostream& out, std::ostream&) {
  const BesideOptions options = beside_options(args);
  const report::Report collbench = report::read_report(args.collbench_path);
  const report::Report nccl_tests = report::read_report(args.nccl_tests_path);
  const Beside beside = beside_reports(collbench, nccl_tests, options);
  out << beside_text(beside, collbench, nccl_tests, options);
  if (!args.markdown_path.empty()) {
    write_file(args.markdown_path, beside_markdown(beside, collbench, nccl_tests, options));
  }
  return beside.exit_code();
}

}  // namespace

Subcommand beside_command() {
  using Args = BesideArguments;
  return subcommand<Args>(
      "beside",
      "collbench's NCCL rows beside nccl-tests' (from `nccl-tests`), size by size; exit 1 when "
      "a judged row differs by more than its tolerance",
      {positional(&Args::collbench_path, "collbench", "A collbench report (rows of algo nccl)"),
       positional(&Args::nccl_tests_path, "nccl-tests",
                  "A report written by collreport nccl-tests"),
       option(&Args::bw_tolerance, "--bw-tolerance",
              "Allowed busbw difference in percent, at sizes of at least --bw-from",
              ShowDefault::kYes),
       option(&Args::bw_from, "--bw-from", "Smallest size whose busbw is judged",
              ShowDefault::kYes),
       option(&Args::time_tolerance_us, "--time-tolerance-us",
              "Allowed mean time difference in microseconds, below --time-below",
              ShowDefault::kYes),
       option(&Args::time_tolerance_pct, "--time-tolerance-pct",
              "... or in percent (either suffices)", ShowDefault::kYes),
       option(&Args::time_below, "--time-below", "Sizes below this have their time judged",
              ShowDefault::kYes),
       option(&Args::markdown_path, "--markdown",
              "Also write the tables as Markdown to this file")},
      "Rows match on op, ranks, dtype, redop, root, in_place, bytes, graph, agg_iters, config\n"
      "and repeat (not algo). Mean against mean: collbench's time_us_mean and busbw_gbps against\n"
      "nccl-tests' time and busbw. Differences are collbench - nccl-tests, relative to\n"
      "nccl-tests; bounds are inclusive. Sizes between --time-below and --bw-from are shown, not\n"
      "judged. Exit: 0 every judged row within, 1 a row outside, 2 bad input or nothing judged.\n"
      "See reports/README.md.",
      run_beside);
}

}  // namespace collbench::collreport
