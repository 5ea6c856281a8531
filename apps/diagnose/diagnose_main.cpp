// collbench_diagnose: name the slow GPU, the slow link or node, the straggling or missing rank.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "diagnose_program.hpp"
#include "rejudge.hpp"

namespace {

// --from FILE needs no GPU and no launcher: the saved measurements are judged here.
bool judges_a_saved_diagnosis(int argc, char** argv, int& status) {
  const std::vector<std::string> args(argv, argv + argc);
  bool from = false;
  for (const std::string& arg : args) from = from || arg == "--from" || arg.rfind("--from=", 0) == 0;
  if (!from) return false;
  try {
    const collbench::diagnose::DiagnoseOptions options = collbench::diagnose::parse_diagnose_options(args);
    status = collbench::diagnose::rejudge(options.from_path, options);
  } catch (const collbench::UsageError& error) {
    std::fprintf(stderr, "collbench_diagnose: error: %s\n", error.what());
    status = 2;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (int status = 0; judges_a_saved_diagnosis(argc, argv, status)) return status;
  // Every connection is made when a communicator is created, not lazily inside a rank's first
  // collective, where a rank that never comes would block the launching thread (no deadline can
  // reach it there). A value the user set stays.
  setenv("NCCL_RUNTIME_CONNECT", "0", 0);
  collbench::diagnose::DiagnoseProgram program;
  return collbench::run_program(argc, argv, program);
}
