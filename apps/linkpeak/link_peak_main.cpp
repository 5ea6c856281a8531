// collbench_linkpeak: measures the GPU-to-GPU copy bandwidth this machine reaches (copy engine
// and SM kernel; one direction, both, all GPUs in a ring), prints the topology and a matrix per
// method, and writes CSV rows whose best one-direction copy is the per-GPU link peak that
// collbench's --link-peak turns into peak_fraction.
#include "frame/program.hpp"
#include "link_peak_program.hpp"

int main(int argc, char** argv) {
  collbench::link_peak::LinkPeakProgram program;
  return collbench::run_program(argc, argv, program);
}
