// collbench_diagnose: name the slow GPU, the slow link or node, the straggling or missing rank.
#include <cstdlib>

#include "diagnose_program.hpp"
#include "frame/program.hpp"

int main(int argc, char** argv) {
  // Every connection is made when a communicator is created, not lazily inside a rank's first
  // collective, where a rank that never comes would block the launching thread (no deadline can
  // reach it there). A value the user set stays.
  setenv("NCCL_RUNTIME_CONNECT", "0", 0);
  collbench::diagnose::DiagnoseProgram program;
  return collbench::run_program(argc, argv, program);
}
