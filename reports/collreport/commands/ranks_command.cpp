// `collreport ranks FILE`: which rank of a sample file came late; exit 1 when one is named.
#include <string>

#include "commands/command_io.hpp"
#include "commands/subcommands.hpp"
#include "ranks/ranks.hpp"
#include "ranks/ranks_output.hpp"
#include "reports/sample_file.hpp"
#include "text/format.hpp"

namespace collbench::collreport {
namespace {

struct RanksArguments {
  std::string sample_path;
  std::string min_share = "0.25";
  bool markdown = false;
};

int run_ranks(const RanksArguments& args, std::ostream& out, std::ostream& err) {
  RanksOptions options;
  options.min_share = parse_share(args.min_share, "--min-share");
  const report::SampleFile file = report::read_sample_file(args.sample_path);
  if (!file.warning.empty()) print_warnings({file.warning}, err);
  const RanksAnalysis analysis = analyze_ranks(file, options);
  out << (args.markdown ? ranks_markdown(analysis, options) : ranks_text(analysis, options));
  return analysis.exit_code();
}

}  // namespace

Subcommand ranks_command() {
  using Args = RanksArguments;
  return subcommand<Args>(
      "ranks",
      "Per case of a sample file: which rank came late (GPU and host lateness against the other "
      "ranks') and which waited; exit 1 when a rank is late in enough cases",
      {positional(&Args::sample_path, "file", "A sample file written by collbench --json"),
       option(&Args::min_share, "--min-share",
              "Name a rank late in at least this share of the judged cases (and at least 2): "
              "a fault lasts, a one-off is noise",
              ShowDefault::kYes),
       flag(&Args::markdown, "--markdown", "Print Markdown tables instead of text")},
      "A rank is late in a case when its GPU lateness (a sample's longest time minus its own) or\n"
      "its host lateness (its launch after its host's earliest) is above max(20 us, 5% of the op\n"
      "time, the other ranks' median + 5 x their spread). Only ops whose ranks end together are\n"
      "judged (all_reduce, all_gather, reduce_scatter, alltoall, alltoallv); cases with one rank\n"
      "or without samples are skipped. Exit: 0 no rank named, 1 a rank late in enough cases, 2\n"
      "bad input or nothing judged. See reports/README.md.",
      run_ranks);
}

}  // namespace collbench::collreport
