// `collreport merge FILE... [-o OUT]`: reports of one schema as one.
#include <string>
#include <utility>
#include <vector>

#include "commands/cli.hpp"
#include "commands/command_io.hpp"
#include "commands/subcommands.hpp"
#include "rows/merge.hpp"

namespace collbench::collreport {
namespace {

struct MergeArguments {
  std::vector<std::string> reports;
  std::string output_path;
  bool as_passes = false;
};

int run_merge(const MergeArguments& args, std::ostream& out, std::ostream&) {
  std::vector<report::Report> reports;
  for (const std::string& path : args.reports) reports.push_back(report::read_report(path));
  const report::Report merged = args.as_passes
                                    ? merge_as_passes(std::move(reports), "merged reports")
                                    : merge_reports(reports, "merged reports");
  write_file_or_print(args.output_path, report_csv(merged), out);
  return kExitOk;
}

}  // namespace

Subcommand merge_command() {
  using Args = MergeArguments;
  return subcommand<Args>(
      "merge", "Concatenate reports of the same schema into one",
      {positional(&Args::reports, "files", "CSV reports"),
       option(&Args::output_path, "-o,--output", "Write here instead of standard output"),
       flag(&Args::as_passes, "--as-passes",
            "The reports are runs of one sweep in separate processes: number their passes one "
            "after another (as --repeat does), so compare pools every process's pass")},
      "", run_merge);
}

}  // namespace collbench::collreport
