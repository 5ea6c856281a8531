// collreport's command line, run in the test process.
#include "collreport/commands/cli_run.hpp"

#include <sstream>

#include "commands/cli.hpp"

namespace collbench::collreport {

CliResult run_cli(std::vector<std::string> args) {
  args.insert(args.begin(), "collreport");
  std::vector<const char*> argv;
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  std::ostringstream out, err;
  const int code = run_collreport(static_cast<int>(argv.size()), argv.data(), out, err);
  return {code, out.str(), err.str()};
}

}  // namespace collbench::collreport
