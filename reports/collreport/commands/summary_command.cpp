// `collreport summary FILE...`: a line per curve of one or more reports or sample files.
#include <string>
#include <vector>

#include "commands/cli.hpp"
#include "commands/command_io.hpp"
#include "commands/subcommands.hpp"
#include "summary/summary_output.hpp"

namespace collbench::collreport {
namespace {

struct SummaryArguments {
  std::vector<std::string> reports;
  bool markdown = false;
};

int run_summary(const SummaryArguments& args, std::ostream& out, std::ostream& err) {
  const report::Report report = read_reports_or_samples(args.reports, err);
  out << (args.markdown ? summary_markdown(report) : summary_text(report));
  return kExitOk;
}

}  // namespace

Subcommand summary_command() {
  using Args = SummaryArguments;
  return subcommand<Args>(
      "summary",
      "Per curve (op, algo, ranks, dtype, variant): peak busbw and where it is reached, "
      "sizes reaching 50%/90% of it, latency floor, the widest interval, wrong elements, "
      "skipped/failed rows; with passes of --repeat, the widest spreads between them",
      {positional(&Args::reports, "files", "CSV reports (several are merged first)"),
       flag(&Args::markdown, "--markdown", "Print a Markdown table instead of text")},
      "A file may also be a collbench --json sample file (its first non-blank character is '{'):\n"
      "its cases' rows are summarized as a CSV's.",
      run_summary);
}

}  // namespace collbench::collreport
