// collreport's table of subcommands, one file each: what they take and what runs them.
#pragma once

#include <vector>

#include "commands/subcommand.hpp"

namespace collbench::collreport {

// In the order `collreport --help` lists them.
const std::vector<Subcommand>& subcommands();

// The rows of the table, each defined in its own file (summary_command.cpp, ...).
Subcommand summary_command();
Subcommand compare_command();
Subcommand merge_command();
Subcommand ranks_command();
Subcommand nccl_tests_command();
Subcommand beside_command();

}  // namespace collbench::collreport
