// collbench_linkpeak's command line: the copy size, iterations, methods and directions, and the
// common flags it takes (--gpus as one count, --csv).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "frame/settings/common_flags.hpp"
#include "link_peak_probe.hpp"

namespace collbench::link_peak {

struct LinkPeakOptions {
  std::size_t bytes = std::size_t{1} << 30;
  int iters = 20;
  int warmup = 3;
  std::vector<CopyMethod> methods = {CopyMethod::copy_engine, CopyMethod::sm_copy};
  std::vector<Direction> directions = {Direction::uni, Direction::bi, Direction::all};
  CommonSettings common;  // --gpus N (GPUs 0..N-1; 0: every visible GPU), --csv
};

// Parses the arguments (args[0] is the program); throws UsageError with one line naming the bad
// value.
LinkPeakOptions parse_link_peak_options(const std::vector<std::string>& args);
std::string link_peak_help();

}  // namespace collbench::link_peak
