// `collreport nccl-tests FILE... [--csv OUT]`: nccl-tests' output as a report of algo nccl-tests.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "commands/cli.hpp"
#include "commands/command_io.hpp"
#include "commands/subcommands.hpp"
#include "nccl_tests/nccl_tests_rows.hpp"
#include "reports/nccl_tests_output.hpp"
#include "rows/merge.hpp"

namespace collbench::collreport {
namespace {

struct NcclTestsArguments {
  std::vector<std::string> outputs;  // nccl-tests' standard output, a file per run or several
  std::string csv_path;
  std::string config;
};

int run_nccl_tests(const NcclTestsArguments& args, std::ostream& out, std::ostream& err) {
  check_config_text(args.config, "--config");
  NcclTestsConverter converter(args.config);
  std::size_t runs = 0;
  for (const std::string& path : args.outputs) {
    const report::NcclTestsOutput output = report::read_nccl_tests_output(path);
    converter.add(output, file_modified_utc(path));
    runs += output.runs.size();
  }
  print_warnings(converter.warnings(), err);
  write_file_or_print(args.csv_path, report_csv(converter.report()), out);
  if (!args.csv_path.empty()) {
    out << fmt::format("collreport nccl-tests: {} rows from {} run(s) in {} file(s) to {}\n",
                       converter.report().rows.size(), runs, args.outputs.size(), args.csv_path);
  }
  return kExitOk;
}

}  // namespace

Subcommand nccl_tests_command() {
  using Args = NcclTestsArguments;
  return subcommand<Args>(
      "nccl-tests",
      "Convert nccl-tests output (stdout of all_reduce_perf etc., 2.19) into a CSV report of algo "
      "nccl-tests, to set beside collbench's with `beside`",
      {positional(&Args::outputs, "files", "Files of nccl-tests standard output"),
       option(&Args::csv_path, "--csv", "Write the report here instead of standard output"),
       option(&Args::config, "--config",
              "The config column of every row, as collbench writes it for the same settings (e.g. "
              "register=local for -R 1, split=MOD 2;groups=2 for NCCL_TESTS_SPLIT)")},
      "Two rows per data line (out of place, in place): time_us_mean = nccl-tests' time (its\n"
      "mean), algbw and busbw as printed, wrong elements where checked; no interval (samples\n"
      "0). ranks = the Rank lines, host and GPU from them, NCCL from the version line. A case\n"
      "measured again (-N) gets repeat 1, 2, ... Lines of fp8 types or mulsum are left out with\n"
      "a warning. Exit: 0 written, 2 bad input (one line naming the file, line and text). See\n"
      "reports/README.md.",
      run_nccl_tests);
}

}  // namespace collbench::collreport
