// collreport: summarizes, compares and merges collbench CSV reports, reads per-rank times from
// sample files, and sets nccl-tests' output beside collbench's (see reports/README.md).
#include <iostream>

#include "commands/cli.hpp"

int main(int argc, char** argv) {
  return collbench::collreport::run_collreport(argc, argv, std::cout, std::cerr);
}
