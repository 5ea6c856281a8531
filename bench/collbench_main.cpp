// collbench: sweep GPU collectives over size, GPU count, data type and operation.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "launch/interrupt.hpp"
#include "sweep/options.hpp"
#include "sweep/sweep_session.hpp"

int main(int argc, char** argv) {
  collbench::install_interrupt_handlers();
  collbench::SessionFlags flags;
  std::vector<char*> args(argv, argv + argc);
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--list") == 0) flags.listing = true;
    if (std::strncmp(argv[i], "--benchmark_format", 18) == 0) flags.google_benchmark_display = true;
  }
  // --list is Google Benchmark's list mode: names (filter applied), nothing run.
  std::string list_flag = "--benchmark_list_tests=true";
  if (flags.listing) args.push_back(list_flag.data());
  int count = static_cast<int>(args.size());
  args.push_back(nullptr);
  benchmark::Initialize(&count, args.data());
  try {
    bool help_printed = false;
    const collbench::Options options = collbench::parse_command_line(count, args.data(), help_printed);
    if (help_printed) return 0;
    return collbench::run_session(options, flags);
  } catch (const collbench::UsageError& error) {
    fmt::print(stderr, "collbench: error: {}\n", error.what());
    return 2;
  } catch (const std::exception& error) {
    fmt::print(stderr, "collbench: error: {}\n", error.what());
    return 1;
  }
}
