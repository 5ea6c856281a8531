// The table of subcommands.
#include "commands/subcommands.hpp"

namespace collbench::collreport {

const std::vector<Subcommand>& subcommands() {
  static const std::vector<Subcommand> table = {summary_command(),    compare_command(),
                                                merge_command(),      ranks_command(),
                                                nccl_tests_command(), beside_command()};
  return table;
}

}  // namespace collbench::collreport
