// Runs collreport's command line in the test process, capturing its streams and exit status.
#pragma once

#include <string>
#include <vector>

namespace collbench::collreport {

struct CliResult {
  int code;
  std::string out;
  std::string err;
};

// `args` without the program name.
CliResult run_cli(std::vector<std::string> args);

}  // namespace collbench::collreport
