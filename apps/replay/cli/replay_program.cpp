// The subcommands through the frame.
#include "cli/replay_program.hpp"

#include <iostream>
#include <stdexcept>

#include "cli/replay_commands.hpp"

namespace collbench::replay {
namespace {

// Reaching a plan would be a bug in the frame's order (run_without_plan always answers).
[[noreturn]] void no_plan() {
  throw std::logic_error("collbench_replay has no GPU plan: its subcommands run without one");
}

}  // namespace

std::string ReplayProgram::help() const {
  return replay_help();
}

void ReplayProgram::parse(const std::vector<std::string>& args) {
  options_ = parse_replay_options(args);
}

std::optional<int> ReplayProgram::run_without_plan() {
  run_replay_command(options_, std::cout);
  return kExitOk;
}

void ReplayProgram::start(RunContext&) {
  no_plan();
}

void ReplayProgram::run_plan(RunContext&) {
  no_plan();
}

int ReplayProgram::finish(RunContext&) {
  no_plan();
}

}  // namespace collbench::replay
