// collbench: sweep GPU collectives over size, GPU count, data type and operation.
#include "collbench/collbench_program.hpp"
#include "frame/program.hpp"

int main(int argc, char** argv) {
  collbench::CollbenchProgram program;
  return collbench::run_program(argc, argv, program);
}
