// collbench_diagnose: name the slow GPU, the slow link or node, the straggling or missing rank.
#include "diagnose_program.hpp"

int main(int argc, char** argv) {
  collbench::diagnose::DiagnoseProgram program;
  return collbench::run_program(argc, argv, program);
}
