// collbench_replay: a real job's communication imported, checked, rescaled and summarized as a
// workload (docs/replay.md). Bad input and refused workloads: one line, exit status 2.
#include "cli/replay_program.hpp"
#include "frame/program.hpp"

int main(int argc, char** argv) {
  collbench::replay::ReplayProgram program;
  return collbench::run_program(argc, argv, program);
}
